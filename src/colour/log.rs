//! Camera log encodings: how a camera's log signal encodes scene light, each from its maker's
//! published formula, with the camera gamut it comes in; and the display rendering that shows
//! such a signal on a BT.709 screen.
//!
//! - **The signal.** Each curve takes the picture's R'G'B' signal normalised to 0–1 after the
//!   file's range (limited-range Y' 64–940 at 10 bits is 0–1), as OpenColorIO and DaVinci
//!   Resolve feed them: S-Log3's 18% grey is signal 420/1023.
//! - **Scene light** is linear reflectance: 0.18 is an 18% grey card, 0.9 a white one. Canon's
//!   curves, published for light relative to a 90% white, are scaled here to reflectance.
//! - **Stops** are log2 of scene light over 0.18: 0 is 18% grey, +1 one stop over.
//! - **The display rendering** (`display`): scene light in the camera's gamut → linear BT.709
//!   (through XYZ; every gamut here has the D65 white); colours outside BT.709 brought toward
//!   the grey of their luminance, as histoplay maps every wide gamut; then each channel through
//!   the BT.709 OETF, as a Rec.709 viewing transform does (18% grey at signal 0.409, code 104 of
//!   255). Highlights are rolled off rather than clipped where Rec.709 clips (a 100% white
//!   card's light): above one stop over grey (`SHOULDER`), scene light is compressed in stops
//!   toward the white card's (`roll_off`), so +2½ stops shows at 83%, +4 at 94% and +6 at
//!   98%, as a film-like viewing transform holds them. The LUT pass computes it for every pixel (a `Lut` of the encoding,
//!   `Lut::log_view`), so it stands where a LUT made for the footage would.

use super::primaries::{primaries_xy, rows_between, Primaries};

/// 18% grey: the scene light stops count from.
pub const GREY: f64 = 0.18;

/// A camera log encoding: its curve and the gamut it comes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LogEncoding {
    /// Sony S-Log3 in S-Gamut3.
    SLog3,
    /// Sony S-Log3 in S-Gamut3.Cine.
    SLog3Cine,
    /// ARRI LogC3 (EI 800) in ARRI Wide Gamut 3.
    LogC3,
    /// ARRI LogC4 in ARRI Wide Gamut 4.
    LogC4,
    /// Panasonic V-Log in V-Gamut.
    VLog,
    /// Canon Log 2 in Cinema Gamut.
    CLog2,
    /// Canon Log 3 in Cinema Gamut.
    CLog3,
    /// RED Log3G10 in REDWideGamutRGB.
    Log3G10,
    /// Fujifilm F-Log in F-Gamut.
    FLog,
    /// Fujifilm F-Log2 in F-Gamut.
    FLog2,
    /// Blackmagic Film Generation 5 in Blackmagic Wide Gamut.
    BmdFilm5,
    /// DJI D-Log in D-Gamut.
    DLog,
    /// Apple Log (BT.2020 primaries).
    AppleLog,
}

impl LogEncoding {
    pub const ALL: [LogEncoding; 13] = [
        LogEncoding::SLog3,
        LogEncoding::SLog3Cine,
        LogEncoding::LogC3,
        LogEncoding::LogC4,
        LogEncoding::VLog,
        LogEncoding::CLog2,
        LogEncoding::CLog3,
        LogEncoding::Log3G10,
        LogEncoding::FLog,
        LogEncoding::FLog2,
        LogEncoding::BmdFilm5,
        LogEncoding::DLog,
        LogEncoding::AppleLog,
    ];

    /// Its name on the command line (`--input-colour`) and in input.conf.
    pub fn name(self) -> &'static str {
        match self {
            LogEncoding::SLog3 => "s-log3",
            LogEncoding::SLog3Cine => "s-log3-cine",
            LogEncoding::LogC3 => "logc3",
            LogEncoding::LogC4 => "logc4",
            LogEncoding::VLog => "v-log",
            LogEncoding::CLog2 => "c-log2",
            LogEncoding::CLog3 => "c-log3",
            LogEncoding::Log3G10 => "log3g10",
            LogEncoding::FLog => "f-log",
            LogEncoding::FLog2 => "f-log2",
            LogEncoding::BmdFilm5 => "bmd-film-gen5",
            LogEncoding::DLog => "d-log",
            LogEncoding::AppleLog => "apple-log",
        }
    }

    /// For the OSD and the JSON: the curve and its gamut.
    pub fn label(self) -> &'static str {
        match self {
            LogEncoding::SLog3 => "S-Log3 / S-Gamut3",
            LogEncoding::SLog3Cine => "S-Log3 / S-Gamut3.Cine",
            LogEncoding::LogC3 => "LogC3 (EI 800) / ARRI Wide Gamut 3",
            LogEncoding::LogC4 => "LogC4 / ARRI Wide Gamut 4",
            LogEncoding::VLog => "V-Log / V-Gamut",
            LogEncoding::CLog2 => "Canon Log 2 / Cinema Gamut",
            LogEncoding::CLog3 => "Canon Log 3 / Cinema Gamut",
            LogEncoding::Log3G10 => "Log3G10 / REDWideGamutRGB",
            LogEncoding::FLog => "F-Log / F-Gamut",
            LogEncoding::FLog2 => "F-Log2 / F-Gamut",
            LogEncoding::BmdFilm5 => "Blackmagic Film Gen 5 / Wide Gamut",
            LogEncoding::DLog => "D-Log / D-Gamut",
            LogEncoding::AppleLog => "Apple Log / BT.2020",
        }
    }

    /// Other spellings a user or a file's metadata uses, squeezed (`squeeze`).
    fn aliases(self) -> &'static [&'static str] {
        match self {
            LogEncoding::SLog3 => &["slog3", "slog3sgamut3", "sgamut3slog3", "sonyslog3"],
            LogEncoding::SLog3Cine => &["slog3cine", "slog3sgamut3cine", "sgamut3cineslog3"],
            LogEncoding::LogC3 => &["logc3", "logc", "arrilogc3", "arrilogc", "alexalogc", "logc3awg3"],
            LogEncoding::LogC4 => &["logc4", "arrilogc4", "logc4awg4"],
            LogEncoding::VLog => &["vlog", "panasonicvlog", "vlogvgamut"],
            LogEncoding::CLog2 => &["clog2", "canonlog2"],
            LogEncoding::CLog3 => &["clog3", "canonlog3"],
            LogEncoding::Log3G10 => &[
                "log3g10",
                "redlog3g10",
                "log3g10redwidegamutrgb",
                "redwidegamutrgblog3g10",
            ],
            LogEncoding::FLog => &["flog", "fujifilmflog", "fujiflog"],
            LogEncoding::FLog2 => &["flog2", "fujifilmflog2", "fujiflog2"],
            LogEncoding::BmdFilm5 => &[
                "bmdfilmgen5",
                "bmdfilm5",
                "blackmagicfilmgen5",
                "blackmagicdesignfilmgen5",
                "blackmagicfilmgeneration5",
            ],
            LogEncoding::DLog => &["dlog", "djidlog"],
            LogEncoding::AppleLog => &["applelog", "comapplelog"],
        }
    }

    /// `s-log3`, `S-Log3.Cine`, `LogC4`, `com.apple.log`: case, spaces and punctuation aside.
    pub fn parse(text: &str) -> Option<Self> {
        let squeezed = squeeze(text);
        Self::ALL.into_iter().find(|e| e.aliases().contains(&squeezed.as_str()))
    }

    /// The encoding a file's metadata names, if one does: a tag whose key has a word about the
    /// curve, colour, camera or profile (`capture_gamma`, `com.apple.quicktime.log`, not
    /// `catalog`; a comment, free text, never: a blog's "Vlog") and whose whole value is an
    /// encoding's name (`com.apple.log`, `S-Log3.Cine`; not "my v-log trip").
    pub fn from_tags<'a>(tags: impl IntoIterator<Item = (&'a str, &'a str)>) -> Option<Self> {
        const WORDS: [&str; 8] = [
            "gamma", "transfer", "log", "curve", "color", "colour", "camera", "profile",
        ];
        let about_the_curve = |key: &str| {
            // Words split at punctuation and where a small letter meets a capital (`LogMode`).
            let (mut words, mut word, mut last_small) = (Vec::new(), String::new(), false);
            for c in key.chars() {
                if !c.is_ascii_alphanumeric() || (c.is_ascii_uppercase() && last_small) {
                    words.push(std::mem::take(&mut word));
                }
                if c.is_ascii_alphanumeric() {
                    word.push(c.to_ascii_lowercase());
                }
                last_small = c.is_ascii_lowercase();
            }
            words.push(word);
            words.iter().any(|w| WORDS.contains(&w.as_str()))
        };
        tags.into_iter()
            .filter(|(key, _)| about_the_curve(key))
            .find_map(|(_, value)| Self::parse(value))
    }

    /// The primaries (x, y) of its gamut; the white of each is D65.
    pub fn gamut(self) -> [[f64; 2]; 3] {
        match self {
            LogEncoding::SLog3 => [[0.730, 0.280], [0.140, 0.855], [0.100, -0.050]],
            LogEncoding::SLog3Cine => [[0.766, 0.275], [0.225, 0.800], [0.089, -0.087]],
            LogEncoding::LogC3 => [[0.6840, 0.3130], [0.2210, 0.8480], [0.0861, -0.1020]],
            LogEncoding::LogC4 => [[0.7347, 0.2653], [0.1424, 0.8576], [0.0991, -0.0308]],
            LogEncoding::VLog => [[0.730, 0.280], [0.165, 0.840], [0.100, -0.030]],
            LogEncoding::CLog2 | LogEncoding::CLog3 => [[0.740, 0.270], [0.170, 1.140], [0.080, -0.100]],
            LogEncoding::Log3G10 => [[0.780308, 0.304253], [0.121595, 1.493994], [0.095612, -0.084589]],
            LogEncoding::FLog | LogEncoding::FLog2 | LogEncoding::AppleLog => primaries_xy(Primaries::Bt2020),
            LogEncoding::BmdFilm5 => [[0.7177215, 0.3171181], [0.2280410, 0.8615690], [0.1005841, -0.0820452]],
            LogEncoding::DLog => [[0.71, 0.31], [0.21, 0.88], [0.09, -0.08]],
        }
    }

    /// Scene light (reflectance, 0.18 grey) → signal (0..1 for the light a camera records).
    pub fn encode(self, x: f64) -> f64 {
        match self {
            LogEncoding::SLog3 | LogEncoding::SLog3Cine => {
                if x >= 0.01125 {
                    (420.0 + ((x + 0.01) / (GREY + 0.01)).log10() * 261.5) / 1023.0
                } else {
                    (x * (SLOG3_CUT_CODE - 95.0) / 0.01125 + 95.0) / 1023.0
                }
            }
            LogEncoding::LogC3 => {
                let [cut, a, b, c, d, e, f] = LOGC3_EI800;
                if x > cut {
                    c * (a * x + b).log10() + d
                } else {
                    e * x + f
                }
            }
            LogEncoding::LogC4 => {
                let k = LogC4::new();
                if x >= k.t {
                    ((k.a * x + 64.0).log2() - 6.0) / 14.0 * k.b + k.c
                } else {
                    (x - k.t) / k.s
                }
            }
            LogEncoding::VLog => {
                if x < 0.01 {
                    5.6 * x + 0.125
                } else {
                    0.241514 * (x + 0.00873).log10() + 0.598206
                }
            }
            LogEncoding::CLog2 => {
                let x = x / 0.9;
                let y = 0.24136077 * (87.09937546 * x.abs() + 1.0).log10();
                if x < 0.0 {
                    0.092864125 - y
                } else {
                    0.092864125 + y
                }
            }
            LogEncoding::CLog3 => {
                let x = x / 0.9;
                let (lo, hi) = (clog3_decode(0.097465473), clog3_decode(0.15277891));
                if x < lo {
                    -0.36726845 * (-14.98325 * x + 1.0).log10() + 0.12783901
                } else if x <= hi {
                    1.9754798 * x + 0.12512219
                } else {
                    0.36726845 * (14.98325 * x + 1.0).log10() + 0.12240537
                }
            }
            LogEncoding::Log3G10 => {
                let x = x + 0.01;
                if x < 0.0 {
                    x * 15.1927
                } else {
                    0.224282 * (x * 155.975327 + 1.0).log10()
                }
            }
            LogEncoding::FLog | LogEncoding::FLog2 => {
                let [cut1, _, a, b, c, d, e, f] = flog_constants(self);
                if x < cut1 {
                    e * x + f
                } else {
                    c * (a * x + b).log10() + d
                }
            }
            LogEncoding::BmdFilm5 => {
                let [a, b, c, d, e, lin_cut] = BMD_FILM5;
                if x < lin_cut {
                    d * x + e
                } else {
                    a * (x + b).ln() + c
                }
            }
            LogEncoding::DLog => {
                if x <= 0.0078 {
                    6.025 * x + 0.0929
                } else {
                    (x * 0.9892 + 0.0108).log10() * 0.256663 + 0.584555
                }
            }
            LogEncoding::AppleLog => {
                let [r0, rt, sigma, beta, gamma, delta] = APPLE_LOG;
                if x >= rt {
                    gamma * (x + beta).log2() + delta
                } else if x >= r0 {
                    sigma * (x - r0) * (x - r0)
                } else {
                    0.0
                }
            }
        }
    }

    /// Signal → scene light (reflectance, 0.18 grey): the inverse of `encode`.
    pub fn decode(self, y: f64) -> f64 {
        match self {
            LogEncoding::SLog3 | LogEncoding::SLog3Cine => {
                if y >= SLOG3_CUT_CODE / 1023.0 {
                    10f64.powf((y * 1023.0 - 420.0) / 261.5) * (GREY + 0.01) - 0.01
                } else {
                    (y * 1023.0 - 95.0) * 0.01125 / (SLOG3_CUT_CODE - 95.0)
                }
            }
            LogEncoding::LogC3 => {
                let [cut, a, b, c, d, e, f] = LOGC3_EI800;
                if y > e * cut + f {
                    (10f64.powf((y - d) / c) - b) / a
                } else {
                    (y - f) / e
                }
            }
            LogEncoding::LogC4 => {
                let k = LogC4::new();
                if y >= 0.0 {
                    (2f64.powf(14.0 * (y - k.c) / k.b + 6.0) - 64.0) / k.a
                } else {
                    y * k.s + k.t
                }
            }
            LogEncoding::VLog => {
                if y < 0.181 {
                    (y - 0.125) / 5.6
                } else {
                    10f64.powf((y - 0.598206) / 0.241514) - 0.00873
                }
            }
            LogEncoding::CLog2 => {
                let d = (y - 0.092864125).abs();
                let x = (10f64.powf(d / 0.24136077) - 1.0) / 87.09937546;
                0.9 * if y < 0.092864125 { -x } else { x }
            }
            LogEncoding::CLog3 => 0.9 * clog3_decode(y),
            LogEncoding::Log3G10 => {
                if y < 0.0 {
                    y / 15.1927 - 0.01
                } else {
                    (10f64.powf(y / 0.224282) - 1.0) / 155.975327 - 0.01
                }
            }
            LogEncoding::FLog | LogEncoding::FLog2 => {
                let [_, cut2, a, b, c, d, e, f] = flog_constants(self);
                if y < cut2 {
                    (y - f) / e
                } else {
                    10f64.powf((y - d) / c) / a - b / a
                }
            }
            LogEncoding::BmdFilm5 => {
                let [a, b, c, d, e, lin_cut] = BMD_FILM5;
                if y < d * lin_cut + e {
                    (y - e) / d
                } else {
                    ((y - c) / a).exp() - b
                }
            }
            LogEncoding::DLog => {
                if y <= 0.14 {
                    (y - 0.0929) / 6.025
                } else {
                    (10f64.powf(3.89616 * y - 2.27752) - 0.0108) / 0.9892
                }
            }
            LogEncoding::AppleLog => {
                let [r0, rt, sigma, beta, gamma, delta] = APPLE_LOG;
                let pt = sigma * (rt - r0) * (rt - r0);
                if y >= pt {
                    2f64.powf((y - delta) / gamma) - beta
                } else if y >= 0.0 {
                    (y / sigma).sqrt() + r0
                } else {
                    r0
                }
            }
        }
    }

    /// Stops from 18% grey of a signal (−∞ for no light at all).
    pub fn stops(self, signal: f64) -> f64 {
        (self.decode(signal) / GREY).log2()
    }

    /// The signal of a level `stops` from 18% grey.
    pub fn signal_at_stops(self, stops: f64) -> f64 {
        self.encode(GREY * stops.exp2())
    }

    /// The camera gamut's linear RGB → BT.709's, by rows.
    pub fn to_bt709(self) -> [[f64; 3]; 3] {
        rows_between(self.gamut(), primaries_xy(Primaries::Bt709))
    }
}

/// What the viewer says the signal is (`--input-colour`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum InputColour {
    /// The encoding the file's metadata names, if it names one; else video as it is.
    #[default]
    Auto,
    /// Video as it is: no log encoding.
    Video,
    Log(LogEncoding),
}

impl InputColour {
    /// The encoding in force for a file whose metadata names `tagged`.
    pub fn resolve(self, tagged: Option<LogEncoding>) -> Option<LogEncoding> {
        match self {
            InputColour::Auto => tagged,
            InputColour::Video => None,
            InputColour::Log(encoding) => Some(encoding),
        }
    }
}

impl std::str::FromStr for InputColour {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(InputColour::Auto),
            "none" | "video" | "off" => Ok(InputColour::Video),
            _ => LogEncoding::parse(s).map(InputColour::Log).ok_or_else(|| {
                let names: Vec<_> = LogEncoding::ALL.iter().map(|e| e.name()).collect();
                format!(
                    "not a log encoding histoplay knows: {s} (auto, none, {})",
                    names.join(", ")
                )
            }),
        }
    }
}

/// S-Log3's code where its straight toe meets the log.
const SLOG3_CUT_CODE: f64 = 171.2102946929;

/// ARRI LogC3 at EI 800 (firmware SUP 3 and later), from scene exposure:
/// cut, a, b, c, d, e, f of t = c·log10(a·x + b) + d above the cut, e·x + f below.
const LOGC3_EI800: [f64; 7] = [0.010591, 5.555556, 0.052272, 0.247190, 0.385537, 5.367655, 0.092809];

/// ARRI LogC4's constants, derived as ARRI's specification derives them.
struct LogC4 {
    a: f64,
    b: f64,
    c: f64,
    s: f64,
    t: f64,
}

impl LogC4 {
    fn new() -> Self {
        let a = (2f64.powi(18) - 16.0) / 117.45;
        let b = (1023.0 - 95.0) / 1023.0;
        let c = 95.0 / 1023.0;
        let s = 7.0 * std::f64::consts::LN_2 * 2f64.powf(7.0 - 14.0 * c / b) / (a * b);
        let t = (2f64.powf(14.0 * (-c / b) + 6.0) - 64.0) / a;
        Self { a, b, c, s, t }
    }
}

/// Canon Log 3 (v1.2) → light relative to a 90% white.
fn clog3_decode(y: f64) -> f64 {
    if y < 0.097465473 {
        -(10f64.powf((0.12783901 - y) / 0.36726845) - 1.0) / 14.98325
    } else if y <= 0.15277891 {
        (y - 0.12512219) / 1.9754798
    } else {
        (10f64.powf((y - 0.12240537) / 0.36726845) - 1.0) / 14.98325
    }
}

/// Fujifilm F-Log's and F-Log2's cut1, cut2, a, b, c, d, e, f.
fn flog_constants(encoding: LogEncoding) -> [f64; 8] {
    if encoding == LogEncoding::FLog2 {
        [
            0.000889,
            0.100686685370811,
            5.555556,
            0.064829,
            0.245281,
            0.384316,
            8.799461,
            0.092864,
        ]
    } else {
        [
            0.00089,
            0.100537775223865,
            0.555556,
            0.009468,
            0.344676,
            0.790453,
            8.735631,
            0.092864,
        ]
    }
}

/// Blackmagic Film Generation 5's A, B, C, D, E and linear cut.
const BMD_FILM5: [f64; 6] = [
    0.08692876065491224,
    0.005494072432257808,
    0.5300133392291939,
    8.283605932402494,
    0.09246575342465753,
    0.005,
];

/// Apple Log's R0, Rt, σ, β, γ, δ.
const APPLE_LOG: [f64; 6] = [-0.05641088, 0.01, 47.28711236, 0.00964052, 0.08550479, 0.69336945];

/// `text` in lower case without spaces or punctuation: `S-Log3.Cine` → `slog3cine`.
fn squeeze(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Where the display rendering's roll-off starts: scene light one stop over 18% grey.
pub const SHOULDER: f64 = 2.0 * GREY;

/// The BT.709 OETF.
pub fn bt709_oetf(l: f64) -> f64 {
    if l < 0.018 {
        4.5 * l
    } else {
        1.099 * l.powf(0.45) - 0.099
    }
}

/// The highlight roll-off, on scene light: the identity up to `SHOULDER`; above it, the stops
/// over the shoulder, u, become room·(1 − e^(−u/room)), room being the stops from the shoulder
/// to a white card's light (1.0). So it leaves the identity with its slope, rises with the
/// light, and approaches 1.0 without reaching it.
pub fn roll_off(c: f64) -> f64 {
    if c <= SHOULDER {
        c
    } else {
        let room = (1.0 / SHOULDER).log2();
        let u = (c / SHOULDER).log2();
        SHOULDER * (room * (1.0 - (-u / room).exp())).exp2()
    }
}

/// BT.709's luminance weights.
const BT709_LUMA: [f64; 3] = [0.2126, 0.7152, 0.0722];

/// The display rendering of a log signal (R'G'B', 0..1) for a BT.709 screen: its BT.709 signal
/// (see the module's notes).
pub fn display(encoding: LogEncoding, signal: [f64; 3], to_bt709: &[[f64; 3]; 3]) -> [f64; 3] {
    display_linear(signal.map(|s| encoding.decode(s)), to_bt709)
}

/// `display` from the camera gamut's scene light.
fn display_linear(scene: [f64; 3], to_bt709: &[[f64; 3]; 3]) -> [f64; 3] {
    let lin = to_bt709.map(|row| row[0] * scene[0] + row[1] * scene[1] + row[2] * scene[2]);
    let y: f64 = (0..3).map(|c| BT709_LUMA[c] * lin[c]).sum();
    let inside = if y <= 0.0 {
        [0.0; 3]
    } else {
        // The largest t in [0, 1] with y + t·(c − y) ≥ 0 in every channel.
        let t = lin
            .iter()
            .filter(|&&c| c < 0.0)
            .fold(1.0f64, |t, &c| t.min(y / (y - c)));
        lin.map(|c| (y + t * (c - y)).max(0.0))
    };
    inside.map(|c| bt709_oetf(roll_off(c)))
}

/// `display_linear` in f32, step for step as the LUT pass does it (`log_view` in
/// shaders/render/lut.wgsl, whose CPU twin this is): scene light already decoded, `rows` the
/// camera gamut's RGB → BT.709's; a BT.709 signal, 0..1.
pub fn display_f32(scene: [f32; 3], rows: &[[f32; 4]; 3]) -> [f32; 3] {
    let lin = rows.map(|row| row[0] * scene[0] + row[1] * scene[1] + row[2] * scene[2]);
    let y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
    let mut inside = [0.0f32; 3];
    if y > 0.0 {
        let mut t = 1.0f32;
        for c in lin {
            if c < 0.0 {
                t = t.min(y / (y - c));
            }
        }
        inside = lin.map(|c| (y + t * (c - y)).max(0.0));
    }
    let shoulder = SHOULDER as f32;
    inside.map(|c| {
        let mut l = c;
        if c > shoulder {
            let room = (1.0 / shoulder).log2();
            let u = (c / shoulder).log2();
            l = shoulder * (room * (1.0 - (-u / room).exp())).exp2();
        }
        if l < 0.018 {
            4.5 * l
        } else {
            1.099 * l.powf(0.45) - 0.099
        }
    })
}

#[cfg(test)]
mod tests;

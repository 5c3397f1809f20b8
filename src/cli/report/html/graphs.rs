//! The page's pictures of a programme over time: graphs as inline SVG (luminance, saturation,
//! the broadcast-range share, loudness) and the luma timeline strip as an inline PNG, each from
//! the buckets the report gathered.

use super::series::{Bucket, Series};

/// Rows of the strip (luma codes gathered into these).
pub const STRIP_ROWS: usize = 64;

/// One bucket of the pictures' values: the lowest YMIN, highest YMAX and SATMAX, and the sums
/// of YAVG, SATAVG and BRNG for their means.
#[derive(Clone, Debug)]
pub struct Pictures {
    pub ymin: f32,
    pub ymax: f32,
    pub satmax: f32,
    pub yavg: f64,
    pub satavg: f64,
    pub brng: f64,
    pub count: u32,
    /// The most flashes a second (over the photosensitivity standard's area).
    pub flashes: f32,
    /// The luma histograms' shares, gathered into `STRIP_ROWS` rows (the darkest first).
    pub strip: [f32; STRIP_ROWS],
}

impl Bucket for Pictures {
    fn merge(&mut self, later: &Self) {
        self.ymin = self.ymin.min(later.ymin);
        self.ymax = self.ymax.max(later.ymax);
        self.satmax = self.satmax.max(later.satmax);
        self.yavg += later.yavg;
        self.satavg += later.satavg;
        self.brng += later.brng;
        self.count += later.count;
        self.flashes = self.flashes.max(later.flashes);
        for (a, b) in self.strip.iter_mut().zip(&later.strip) {
            *a += b;
        }
    }
}

/// One bucket of the sound's 100 ms frames: the loudest momentary and short-term loudness.
#[derive(Clone, Debug)]
pub struct Loudness {
    pub momentary: f32,
    pub short_term: f32,
}

impl Bucket for Loudness {
    fn merge(&mut self, later: &Self) {
        self.momentary = self.momentary.max(later.momentary);
        self.short_term = self.short_term.max(later.short_term);
    }
}

const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 150.0;

/// A line of a graph: its name, colour and a value per bucket.
pub struct Line {
    pub name: &'static str,
    pub colour: &'static str,
    pub values: Vec<f64>,
}

/// An SVG graph of `lines` over the buckets at `times` (seconds, within `span`: the file's
/// first time and its end), values from `low` to `high`, with dashed guides at `guides`
/// (value, label).
pub fn graph(
    title: &str,
    times: &[f64],
    span: (f64, f64),
    lines: &[Line],
    (low, high): (f64, f64),
    guides: &[(f64, String)],
) -> String {
    let span = (span.0, span.1.max(times.last().copied().unwrap_or(0.0)));
    let x = at_time(span);
    let y = |v: f64| 10.0 + (HEIGHT - 30.0) * (1.0 - ((v - low) / (high - low)).clamp(0.0, 1.0));
    let mut svg = format!(
        "<svg class=\"graph\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"{}\">\
         <rect x=\"40\" y=\"10\" width=\"{}\" height=\"{}\" class=\"plot\"/>",
        escape(title),
        WIDTH - 50.0,
        HEIGHT - 30.0
    );
    for (value, label) in guides {
        svg += &format!(
            "<line x1=\"40\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" class=\"guide\"/><text x=\"36\" y=\"{:.1}\" class=\"axis\" text-anchor=\"end\">{}</text>",
            WIDTH - 10.0,
            y(*value) + 3.0,
            escape(label),
            y = y(*value)
        );
    }
    for line in lines {
        // A line through each stretch of values; an infinite one at the edge it goes past (a
        // silence's loudness, -inf, at the floor); none where a value is unknown (NaN), the
        // line broken there rather than drawn across.
        let points: Vec<Option<String>> = times
            .iter()
            .zip(&line.values)
            .map(|(&t, &v)| (!v.is_nan()).then(|| format!("{:.1},{:.1}", x(t), y(v))))
            .collect();
        for stretch in points.split(Option::is_none).filter(|s| !s.is_empty()) {
            let stretch: Vec<&str> = stretch.iter().flatten().map(String::as_str).collect();
            svg += &format!(
                "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\" points=\"{}\"><title>{}</title></polyline>",
                line.colour,
                stretch.join(" "),
                escape(line.name)
            );
        }
    }
    svg += &time_axis(span);
    let legend: Vec<String> = lines
        .iter()
        .map(|l| format!("<span style=\"color:{}\">&#9632;</span> {}", l.colour, escape(l.name)))
        .collect();
    format!(
        "<figure><figcaption>{} <small>{}</small></figcaption>{svg}</svg></figure>",
        escape(title),
        legend.join(" ")
    )
}

/// The luma timeline strip (`strip_png`, as a data URL) over the graphs' plot area, over
/// `span`.
pub fn strip(url: &str, span: (f64, f64)) -> String {
    format!(
        "<figure><figcaption>Luma timeline <small>each column the histogram of its stretch, dark at the bottom</small></figcaption>\
         <svg class=\"graph\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"the luma histograms over time\">\
         <image href=\"{url}\" x=\"40\" y=\"10\" width=\"{}\" height=\"{}\" preserveAspectRatio=\"none\" style=\"image-rendering: pixelated\"/>\
         {}</svg></figure>\n",
        WIDTH - 50.0,
        HEIGHT - 30.0,
        time_axis(span)
    )
}

/// Where time `t` is across a plot of `span` (seconds: its first and its end).
fn at_time((start, end): (f64, f64)) -> impl Fn(f64) -> f64 {
    let length = (end - start).max(1e-3);
    move |t: f64| 40.0 + (WIDTH - 50.0) * ((t - start) / length)
}

/// The time axis under a plot of `span` (seconds, as the file's times count them): a label at
/// each round step.
fn time_axis(span: (f64, f64)) -> String {
    let x = at_time(span);
    let (start, end) = (span.0, span.1.max(span.0 + 1e-3));
    let mut svg = String::new();
    let step = [1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0]
        .into_iter()
        .find(|s| (end - start) / s <= 10.0)
        .unwrap_or(7200.0);
    let mut t = (start / step - 1e-9).ceil() * step;
    while t <= end + 1e-9 {
        svg += &format!(
            "<text x=\"{:.1}\" y=\"{}\" class=\"axis\" text-anchor=\"middle\">{}</text>",
            x(t),
            HEIGHT - 6.0,
            clock(t)
        );
        t += step;
    }
    svg
}

/// The luma timeline strip as PNG bytes: a column per bucket, a row per `STRIP_ROWS` band of
/// codes (dark at the bottom), each column's shares scaled to its largest.
pub fn strip_png(series: &Series<Pictures>) -> Option<Vec<u8>> {
    if series.is_empty() {
        return None;
    }
    let (width, rows_per_band) = (series.buckets.len() as u32, 2u32);
    let height = STRIP_ROWS as u32 * rows_per_band;
    let mut image = image::GrayImage::new(width, height);
    for (x, bucket) in series.buckets.iter().enumerate() {
        let most = bucket
            .strip
            .iter()
            .copied()
            .fold(0.0f32, f32::max)
            .max(f32::MIN_POSITIVE);
        for (band, share) in bucket.strip.iter().enumerate() {
            let level = ((share / most).sqrt() * 255.0).round() as u8;
            for r in 0..rows_per_band {
                let y = height - 1 - (band as u32 * rows_per_band + r);
                image.put_pixel(x as u32, y, image::Luma([level]));
            }
        }
    }
    let mut png = Vec::new();
    image::DynamicImage::ImageLuma8(image)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .ok()?;
    Some(png)
}

/// `h:mm:ss` or `m:ss`, as the axis and the tables write times.
pub fn clock(seconds: f64) -> String {
    let whole = seconds.max(0.0).floor() as u64;
    let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60);
    match h {
        0 => format!("{m}:{s:02}"),
        h => format!("{h}:{m:02}:{s:02}"),
    }
}

/// Text made safe for HTML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_text_are_written_for_the_page() {
        assert_eq!(clock(61.9), "1:01");
        assert_eq!(clock(3725.0), "1:02:05");
        assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }

    #[test]
    fn a_file_whose_times_start_late_is_drawn_from_its_first() {
        // A broadcast stream's clock at 25 hours: its 4 s across the plot, labelled as the
        // event list's times are, at each whole second.
        let line = Line {
            name: "YAVG",
            colour: "#000",
            values: vec![10.0, 20.0, 30.0],
        };
        let svg = graph(
            "Y",
            &[90_000.5, 90_002.5, 90_004.5],
            (90_000.5, 90_004.5),
            &[line],
            (0.0, 40.0),
            &[],
        );
        let points = svg.split("points=\"").nth(1).unwrap().split('"').next().unwrap();
        assert_eq!(points, "40.0,100.0 515.0,70.0 990.0,40.0");
        let labels: Vec<&str> = svg
            .split("class=\"axis\" text-anchor=\"middle\">")
            .skip(1)
            .map(|rest| rest.split('<').next().unwrap())
            .collect();
        assert_eq!(labels, ["25:00:01", "25:00:02", "25:00:03", "25:00:04"]);
    }

    #[test]
    fn a_silences_loudness_is_drawn_at_the_floor_and_an_unknown_value_breaks_the_line() {
        let line = Line {
            name: "momentary",
            colour: "#000",
            values: vec![-20.0, f64::NEG_INFINITY, -20.0, f64::NAN, -40.0, -40.0],
        };
        let svg = graph(
            "Loudness",
            &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
            (0.0, 5.0),
            &[line],
            (-60.0, 0.0),
            &[],
        );
        // x from 40 to 990 over 5 s; y from 130 (-60, and -inf) to 10 (0).
        let lines: Vec<&str> = svg
            .split("points=\"")
            .skip(1)
            .map(|rest| rest.split('"').next().unwrap())
            .collect();
        assert_eq!(lines, ["40.0,50.0 230.0,130.0 420.0,50.0", "800.0,90.0 990.0,90.0"]);
    }
}

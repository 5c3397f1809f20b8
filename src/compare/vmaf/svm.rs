//! The part of libsvm (as vendored in libvmaf 3.2.0, `libvmaf/src/svm.cpp`) that VMAF needs:
//! the model text parser (`SVMModelParser`) and `svm_predict` for regression models.

/// `svm_type_table` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SvmType {
    CSvc,
    NuSvc,
    OneClass,
    EpsilonSvr,
    NuSvr,
}

/// `kernel_type_table` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelType {
    Linear,
    Poly,
    Rbf,
    Sigmoid,
    Precomputed,
}

/// A parsed libsvm model.  Only regression (`epsilon_svr`, `nu_svr`) can be predicted.
#[derive(Clone, Debug)]
pub struct Svm {
    pub svm_type: SvmType,
    pub kernel_type: KernelType,
    pub degree: i32,
    pub gamma: f64,
    pub coef0: f64,
    pub nr_class: i32,
    pub rho: Vec<f64>,
    /// `sv_coef[0]`, one per support vector.
    pub sv_coef: Vec<f64>,
    /// Sparse support vectors: (index, value) in file order (the `-1` terminator left out).
    pub sv: Vec<Vec<(i32, f64)>>,
}

/// `std::istringstream` stand-in: the few operations SVMModelParser uses.
struct Source<'a> {
    b: &'a [u8],
    pos: usize,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

impl<'a> Source<'a> {
    /// `read_next`: characters up to the next '\n' or ' ' (consumed).  True only if that token
    /// is non-empty *and* a delimiter ended it (an empty token or end of input gives false).
    fn read_next(&mut self) -> Option<&'a [u8]> {
        let start = self.pos;
        while self.pos < self.b.len() {
            let c = self.b[self.pos];
            self.pos += 1;
            if c == b'\n' || c == b' ' {
                let tok = &self.b[start..self.pos - 1];
                return if tok.is_empty() { None } else { Some(tok) };
            }
        }
        None
    }

    /// `std::getline`: false only at end of input with nothing read.
    fn read_line(&mut self) -> Option<&'a [u8]> {
        if self.pos >= self.b.len() {
            return None;
        }
        let start = self.pos;
        while self.pos < self.b.len() && self.b[self.pos] != b'\n' {
            self.pos += 1;
        }
        let line = &self.b[start..self.pos];
        if self.pos < self.b.len() {
            self.pos += 1;
        }
        Some(line)
    }

    fn skip_ws(&mut self) {
        while self.pos < self.b.len() && is_space(self.b[self.pos]) {
            self.pos += 1;
        }
    }

    /// `is >> double` (libstdc++ num_get: gathers sign, digits, point, exponent; strtod).
    fn get_f64(&mut self) -> Option<f64> {
        self.skip_ws();
        let s = &self.b[self.pos..];
        // libstdc++ consumes "1e" and then fails the conversion.
        let (_, Some(i)) = scan_decimal(s)? else { return None };
        let text = std::str::from_utf8(&s[..i]).ok()?;
        let v: f64 = text.parse().ok()?;
        if !v.is_finite() {
            return None; // out of range: failbit
        }
        self.pos += i;
        Some(v)
    }

    /// `is >> int`.
    fn get_i32(&mut self) -> Option<i32> {
        self.skip_ws();
        let s = &self.b[self.pos..];
        let mut i = 0;
        if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
            i += 1;
        }
        let d0 = i;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        if i == d0 {
            return None;
        }
        let v: i32 = std::str::from_utf8(&s[..i]).ok()?.parse().ok()?;
        self.pos += i;
        Some(v)
    }

    /// `ignore(1, delim)`: drops one character, whatever it is.
    fn ignore1(&mut self) {
        if self.pos < self.b.len() {
            self.pos += 1;
        }
    }
}

fn err(msg: &str) -> String {
    format!("libsvm model: {msg}")
}

impl Svm {
    /// `svm_parse_model_from_buffer`: the header ("key value" tokens up to "SV"), then
    /// `total_sv` lines of "coef index:value ...".
    pub fn parse(text: &str) -> Result<Svm, String> {
        let mut src = Source {
            b: text.as_bytes(),
            pos: 0,
        };
        let mut svm_type = None;
        let mut kernel_type = None;
        let (mut degree, mut gamma, mut coef0) = (0i32, 0.0f64, 0.0f64);
        let mut nr_class = 0i32;
        let mut perms: i64 = 0;
        let mut l: Option<i32> = None;
        let mut rho: Option<Vec<f64>> = None;

        while let Some(tok) = src.read_next() {
            if tok == b"SV" {
                break;
            }
            match tok {
                b"svm_type" => {
                    let v = src.read_next().ok_or_else(|| err("Failed to read svm_type."))?;
                    svm_type = Some(match v {
                        b"c_svc" => SvmType::CSvc,
                        b"nu_svc" => SvmType::NuSvc,
                        b"one_class" => SvmType::OneClass,
                        b"epsilon_svr" => SvmType::EpsilonSvr,
                        b"nu_svr" => SvmType::NuSvr,
                        _ => return Err(err("Found unknown svm_type")),
                    });
                }
                b"kernel_type" => {
                    let v = src.read_next().ok_or_else(|| err("Failed to read kernel_type."))?;
                    kernel_type = Some(match v {
                        b"linear" => KernelType::Linear,
                        b"polynomial" => KernelType::Poly,
                        b"rbf" => KernelType::Rbf,
                        b"sigmoid" => KernelType::Sigmoid,
                        b"precomputed" => KernelType::Precomputed,
                        _ => return Err(err("Found unknown kernel_type")),
                    });
                }
                b"degree" => {
                    degree = src.get_i32().ok_or_else(|| err("Failed to read degree."))?;
                    src.ignore1();
                }
                b"gamma" => {
                    gamma = src.get_f64().ok_or_else(|| err("Failed to read gamma."))?;
                    src.ignore1();
                }
                b"coef0" => {
                    coef0 = src.get_f64().ok_or_else(|| err("Failed to read coef0."))?;
                    src.ignore1();
                }
                b"nr_class" => {
                    nr_class = src.get_i32().ok_or_else(|| err("Failed to read nr_class."))?;
                    perms = nr_class as i64 * (nr_class as i64 - 1) / 2;
                    src.ignore1();
                }
                b"total_sv" => {
                    l = Some(src.get_i32().ok_or_else(|| err("Failed to read total_sv."))?);
                    src.ignore1();
                }
                b"rho" => {
                    let mut r = Vec::new();
                    for _ in 0..perms.max(0) {
                        r.push(src.get_f64().ok_or_else(|| err("Failed to read rho"))?);
                        src.ignore1();
                    }
                    rho = Some(r);
                }
                b"label" | b"nr_sv" => {
                    for _ in 0..nr_class.max(0) {
                        src.get_i32().ok_or_else(|| err("Failed to read label/nr_sv"))?;
                        src.ignore1();
                    }
                }
                b"probA" | b"probB" => {
                    for _ in 0..perms.max(0) {
                        src.get_f64().ok_or_else(|| err("Failed to read probA/probB"))?;
                        src.ignore1();
                    }
                }
                _ => return Err(err("Unknown text in model file")),
            }
        }

        let svm_type = svm_type.ok_or_else(|| err("no svm_type"))?;
        let kernel_type = kernel_type.ok_or_else(|| err("no kernel_type"))?;
        if !matches!(svm_type, SvmType::EpsilonSvr | SvmType::NuSvr) {
            return Err(err("only epsilon_svr and nu_svr models are supported"));
        }
        if kernel_type == KernelType::Precomputed {
            return Err(err("precomputed kernels are not supported"));
        }
        if nr_class < 2 {
            return Err(err("nr_class must be 2 for regression"));
        }
        let l = l.ok_or_else(|| err("no total_sv"))?;
        if l < 1 {
            return Err(err("total_sv must be positive"));
        }
        let rho = match rho {
            Some(r) if !r.is_empty() => r,
            _ => return Err(err("no rho")),
        };

        // parse_support_vectors
        let ncoef = (nr_class - 1) as usize;
        let mut sv_coef = Vec::with_capacity(l as usize);
        let mut sv = Vec::with_capacity(l as usize);
        for _ in 0..l {
            let line = src.read_line().ok_or_else(|| err("Failed to read SVs"))?;
            let mut ls = Source { b: line, pos: 0 };
            let mut first = 0.0;
            for c in 0..ncoef {
                let v = ls.get_f64().ok_or_else(|| err("Failed to parse SV coefficient"))?;
                if c == 0 {
                    first = v;
                }
            }
            sv_coef.push(first);
            let mut nodes = Vec::new();
            // while(line.good() && line >> index) { ignore(1, ':'); line >> value }
            while ls.pos < ls.b.len() {
                let Some(index) = ls.get_i32() else { break };
                ls.ignore1();
                let value = ls.get_f64().ok_or_else(|| err("Failed to read support vector"))?;
                nodes.push((index, value));
            }
            sv.push(nodes);
        }

        Ok(Svm {
            svm_type,
            kernel_type,
            degree,
            gamma,
            coef0,
            nr_class,
            rho,
            sv_coef,
            sv,
        })
    }

    fn dot(x: &[(i32, f64)], y: &[(i32, f64)]) -> f64 {
        let (mut i, mut j, mut sum) = (0, 0, 0.0);
        while i < x.len() && j < y.len() {
            if x[i].0 == y[j].0 {
                sum += x[i].1 * y[j].1;
                i += 1;
                j += 1;
            } else if x[i].0 > y[j].0 {
                j += 1;
            } else {
                i += 1;
            }
        }
        sum
    }

    fn powi(base: f64, times: i32) -> f64 {
        let (mut tmp, mut ret) = (base, 1.0);
        let mut t = times;
        while t > 0 {
            if t % 2 == 1 {
                ret *= tmp;
            }
            tmp = tmp * tmp;
            t /= 2;
        }
        ret
    }

    /// `Kernel::k_function` (x: the sample, y: a support vector).
    pub fn k_function(&self, x: &[(i32, f64)], y: &[(i32, f64)]) -> f64 {
        match self.kernel_type {
            KernelType::Linear => Self::dot(x, y),
            KernelType::Poly => Self::powi(self.gamma * Self::dot(x, y) + self.coef0, self.degree),
            KernelType::Rbf => {
                let (mut i, mut j, mut sum) = (0, 0, 0.0f64);
                while i < x.len() && j < y.len() {
                    if x[i].0 == y[j].0 {
                        let d = x[i].1 - y[j].1;
                        sum += d * d;
                        i += 1;
                        j += 1;
                    } else if x[i].0 > y[j].0 {
                        sum += y[j].1 * y[j].1;
                        j += 1;
                    } else {
                        sum += x[i].1 * x[i].1;
                        i += 1;
                    }
                }
                while i < x.len() {
                    sum += x[i].1 * x[i].1;
                    i += 1;
                }
                while j < y.len() {
                    sum += y[j].1 * y[j].1;
                    j += 1;
                }
                (-self.gamma * sum).exp()
            }
            KernelType::Sigmoid => (self.gamma * Self::dot(x, y) + self.coef0).tanh(),
            KernelType::Precomputed => unreachable!("rejected at parse"),
        }
    }

    /// `svm_predict` for regression: `sum_i sv_coef[i] * K(x, SV[i])` in SV order, minus rho[0].
    pub fn predict(&self, x: &[(i32, f64)]) -> f64 {
        let mut sum = 0.0f64;
        for (coef, sv) in self.sv_coef.iter().zip(&self.sv) {
            sum += coef * self.k_function(x, sv);
        }
        sum -= self.rho[0];
        sum
    }
}

/// The decimal number `[+-]digits[.digits][(e|E)[+-]digits]` at the start of `s`, as C's
/// readers scan it: None without a digit; else the length of its mantissa, and its whole length
/// (None for an exponent mark with no digits after it, which `strtod` leaves unread and
/// iostream refuses).
pub(super) fn scan_decimal(s: &[u8]) -> Option<(usize, Option<usize>)> {
    let digits_from = |mut i: usize| {
        let start = i;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        (i, i - start)
    };
    let signed = usize::from(matches!(s.first(), Some(b'+' | b'-')));
    let (mut i, mut digits) = digits_from(signed);
    if s.get(i) == Some(&b'.') {
        let (end, fraction) = digits_from(i + 1);
        (i, digits) = (end, digits + fraction);
    }
    if digits == 0 {
        return None;
    }
    if !matches!(s.get(i), Some(b'e' | b'E')) {
        return Some((i, Some(i)));
    }
    let sign = usize::from(matches!(s.get(i + 1), Some(b'+' | b'-')));
    match digits_from(i + 1 + sign) {
        (_, 0) => Some((i, None)),
        (end, _) => Some((i, Some(end))),
    }
}

#[cfg(test)]
mod tests {
    use super::scan_decimal;

    #[test]
    fn decimals_are_scanned_as_cs_readers_scan_them() {
        assert_eq!(scan_decimal(b"-0.04 rest"), Some((5, Some(5))));
        assert_eq!(scan_decimal(b"1.5e-3x"), Some((3, Some(6))));
        assert_eq!(scan_decimal(b"7.E+2"), Some((2, Some(5))));
        // An exponent mark with no digits: strtod stops before it, iostream fails.
        assert_eq!(scan_decimal(b"1e"), Some((1, None)));
        assert_eq!(scan_decimal(b"2e+x"), Some((1, None)));
        assert_eq!(scan_decimal(b".5"), Some((2, Some(2))));
        assert_eq!(scan_decimal(b"-."), None);
        assert_eq!(scan_decimal(b"x1"), None);
    }
}

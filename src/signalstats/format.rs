//! Numbers as FFmpeg prints its statistics: C's `%g` (six significant digits, trailing zeros
//! dropped, an exponent below 1e-4 and from 1e6).

/// `value` as C's printf("%g") writes it.
pub fn g(value: f64) -> String {
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.into();
    }
    if !value.is_finite() {
        return if value.is_nan() {
            "nan".into()
        } else if value > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    // The exponent of the value rounded to six significant digits, as %e would write it.
    let scientific = format!("{value:.5e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("{:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    if !(-4..6).contains(&exponent) {
        let mantissa = trim(mantissa);
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exponent.abs());
    }
    let decimals = (5 - exponent).max(0) as usize;
    trim(&format!("{value:.decimals$}")).to_string()
}

/// Drops a fraction's trailing zeros, and its point if nothing is left after it.
fn trim(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::g;

    #[test]
    fn prints_as_c_does() {
        for (value, printed) in [
            (0.0, "0"),
            (287.48828125, "287.488"),
            (0.5208333333333334, "0.520833"),
            (0.10807291666666667, "0.108073"),
            (1.0, "1"),
            (100000.0, "100000"),
            (999999.5, "1e+06"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (0.000099999, "9.9999e-05"),
            (2.5, "2.5"),
            (-3.25, "-3.25"),
            (545.7109375, "545.711"),
            (1023.0, "1023"),
            // Integers as %d writes them: the statistics' minima and maxima, -1 for none.
            (65535.0, "65535"),
            (-1.0, "-1"),
            (0.00012345678, "0.000123457"),
        ] {
            assert_eq!(g(value), printed, "{value}");
        }
    }
}

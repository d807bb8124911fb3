//! Float builtins that Cranelift has no instruction for. (`sqrt`, `floor`, `ceil`, `abs` and the integer
//! `min`/`max` are emitted inline by the code generator.)

/// Float `%`: C's `fmod` (result has the sign of `x`).
#[unsafe(no_mangle)]
pub extern "C" fn pcc_fmod(x: f64, y: f64) -> f64 {
    x % y
}

#[unsafe(no_mangle)]
pub extern "C" fn pcc_pow(x: f64, y: f64) -> f64 {
    x.powf(y)
}

/// `atan2(y, x)`.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_atan2(y: f64, x: f64) -> f64 {
    y.atan2(x)
}

/// Float `min`: like C's `fmin`, a NaN argument is ignored unless both are NaN.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_fmin(x: f64, y: f64) -> f64 {
    x.min(y)
}

/// Float `max`: like C's `fmax`, a NaN argument is ignored unless both are NaN.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_fmax(x: f64, y: f64) -> f64 {
    x.max(y)
}

#[unsafe(no_mangle)]
pub extern "C" fn pcc_sin(x: f64) -> f64 {
    x.sin()
}

#[unsafe(no_mangle)]
pub extern "C" fn pcc_cos(x: f64) -> f64 {
    x.cos()
}

#[unsafe(no_mangle)]
pub extern "C" fn pcc_tan(x: f64) -> f64 {
    x.tan()
}

#[unsafe(no_mangle)]
pub extern "C" fn pcc_atan(x: f64) -> f64 {
    x.atan()
}

#[unsafe(no_mangle)]
pub extern "C" fn pcc_exp(x: f64) -> f64 {
    x.exp()
}

/// Natural logarithm.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_log(x: f64) -> f64 {
    x.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmod_follows_c() {
        assert_eq!(pcc_fmod(7.5, 2.0), 1.5);
        assert_eq!(pcc_fmod(-7.5, 2.0), -1.5);
        assert_eq!(pcc_fmod(7.5, -2.0), 1.5);
        assert!(pcc_fmod(1.0, 0.0).is_nan());
    }

    #[test]
    fn two_argument_functions_take_arguments_in_source_order() {
        assert_eq!(pcc_pow(2.0, 10.0), 1024.0);
        assert_eq!(pcc_atan2(1.0, 0.0), std::f64::consts::FRAC_PI_2);
        assert_eq!(pcc_atan2(0.0, -1.0), std::f64::consts::PI);
        assert_eq!(pcc_fmin(1.0, f64::NAN), 1.0);
        assert_eq!(pcc_fmax(f64::NAN, 2.0), 2.0);
        assert_eq!((pcc_fmin(1.0, 2.0), pcc_fmax(1.0, 2.0)), (1.0, 2.0));
    }

    #[test]
    fn one_argument_functions() {
        assert_eq!(pcc_sin(0.0), 0.0);
        assert_eq!(pcc_cos(0.0), 1.0);
        assert_eq!(pcc_tan(0.0), 0.0);
        assert_eq!(pcc_atan(1.0), std::f64::consts::FRAC_PI_4);
        assert_eq!(pcc_exp(0.0), 1.0);
        assert_eq!(pcc_log(1.0), 0.0);
        assert!(pcc_log(-1.0).is_nan());
    }
}

//! Y, Cb and Cr samples to R, G and B (JFIF's conversion, in 16-bit fixed
//! point as libjpeg makes it).

const ONE: i32 = 1 << 16;
const HALF: i32 = 1 << 15;

const fn fixed(value: f64) -> i32 {
    (value * ONE as f64 + 0.5) as i32
}

const CR_R: i32 = fixed(1.402);
const CB_G: i32 = fixed(0.344_136);
const CR_G: i32 = fixed(0.714_136);
const CB_B: i32 = fixed(1.772);

/// One row: `y`, `cb` and `cr` (as long as `out` has pixels) into `out`,
/// three bytes a pixel.
pub fn to_rgb(y: &[u8], cb: &[u8], cr: &[u8], out: &mut [u8]) {
    for (((pixel, &y), &cb), &cr) in out.chunks_exact_mut(3).zip(y).zip(cb).zip(cr) {
        let y = i32::from(y) * ONE + HALF;
        let (cb, cr) = (i32::from(cb) - 128, i32::from(cr) - 128);
        let channel = |v: i32| (v >> 16).clamp(0, 255) as u8;
        pixel[0] = channel(y + CR_R * cr);
        pixel[1] = channel(y - CB_G * cb - CR_G * cr);
        pixel[2] = channel(y + CB_B * cb);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greys_stay_grey_and_primaries_come_out() {
        let mut out = [0u8; 9];
        to_rgb(&[0, 128, 255], &[128; 3], &[128; 3], &mut out);
        assert_eq!(out, [0, 0, 0, 128, 128, 128, 255, 255, 255]);
        // Red as JFIF codes it: Y 76, Cb 85, Cr 255.
        let mut red = [0u8; 3];
        to_rgb(&[76], &[85], &[255], &mut red);
        assert!(red[0] >= 253 && red[1] <= 2 && red[2] <= 2, "{red:?}");
    }
}

//! `PCC_GC_STRESS` and `PCC_GC_STATS`: the collector's stress mode and the statistics it prints
//! on stderr when the program ends, as `GODEBUG=gctrace`, `-XX:+PrintGC` or `GC_PRINT_STATS` do
//! for other runtimes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// The pause of every collection, in nanoseconds.
static PAUSES: Mutex<Vec<u64>> = Mutex::new(Vec::new());
/// The most the heap held (its blocks and large objects), in bytes.
static PEAK_HEAP: AtomicUsize = AtomicUsize::new(0);

pub const STRESS_VAR: &str = "PCC_GC_STRESS";
pub const STATS_VAR: &str = "PCC_GC_STATS";

/// `PCC_GC_STRESS=N`: collect every N allocations; `None` when unset or empty. Anything but a
/// positive number is ignored with a warning.
pub fn stress_from_env() -> Option<u64> {
    let text = std::env::var(STRESS_VAR)
        .ok()
        .filter(|text| !text.is_empty())?;
    match text.trim().parse::<u64>() {
        Ok(n) if n > 0 => Some(n),
        _ => {
            eprintln!("pcc: warning: {STRESS_VAR}={text:?} is not a positive number; ignored");
            None
        }
    }
}

/// Notes that the heap holds `bytes`.
pub fn heap_grew(bytes: usize) {
    PEAK_HEAP.fetch_max(bytes, Ordering::Relaxed);
}

pub fn collected(pause: Duration) {
    let nanos = u64::try_from(pause.as_nanos()).unwrap_or(u64::MAX);
    PAUSES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(nanos);
}

/// With `PCC_GC_STATS=1`, arranges for the statistics to be printed when the program ends, however
/// it ends.
pub fn install() {
    if std::env::var(STATS_VAR).is_ok_and(|value| value == "1") {
        crate::register_exit_hook(Box::new(|| {
            let pauses = PAUSES.lock().unwrap_or_else(PoisonError::into_inner);
            eprintln!("{}", summary(&pauses, PEAK_HEAP.load(Ordering::Relaxed)));
            true
        }));
    }
}

/// `pcc: gc: 3 collections; pauses 1.20 ms in all, 0.50 ms longest, median 0.40 ms, 99th
/// percentile 0.50 ms; peak heap 9.0 MiB`.
fn summary(pauses: &[u64], peak: usize) -> String {
    let mut sorted = pauses.to_vec();
    sorted.sort_unstable();
    let ms = |nanos: u64| format!("{:.2} ms", nanos as f64 / 1e6);
    let at = |fraction: f64| {
        let rank = (fraction * sorted.len() as f64).ceil() as usize;
        sorted[rank.clamp(1, sorted.len()) - 1]
    };
    let collections = match sorted.len() {
        1 => "1 collection".to_string(),
        n => format!("{n} collections"),
    };
    let pauses = if sorted.is_empty() {
        String::new()
    } else {
        format!(
            "; pauses {} in all, {} longest, median {}, 99th percentile {}",
            ms(sorted.iter().sum()),
            ms(*sorted.last().expect("not empty")),
            ms(at(0.5)),
            ms(at(0.99)),
        )
    };
    format!(
        "pcc: gc: {collections}{pauses}; peak heap {:.1} MiB",
        peak as f64 / f64::from(1 << 20)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_gives_counts_pauses_and_the_peak() {
        assert_eq!(
            summary(&[], 3 << 20),
            "pcc: gc: 0 collections; peak heap 3.0 MiB"
        );
        assert_eq!(
            summary(&[500_000, 200_000, 400_000], 9 << 20),
            "pcc: gc: 3 collections; pauses 1.10 ms in all, 0.50 ms longest, median 0.40 ms, \
             99th percentile 0.50 ms; peak heap 9.0 MiB"
        );
        assert!(summary(&[1_000_000], 0).starts_with("pcc: gc: 1 collection;"));
    }
}

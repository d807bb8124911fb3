//! Stream buffers: how the generated code of `kbl` and `wpp` hands path events to the runtime
//! without a call per event.
//!
//! A stream buffer is a data object of the program ([`BUFFER_WORDS`] words: the number of words
//! used, then the words). The generated code appends each event with a few inline instructions;
//! when the buffer is full it calls the mode's flush function (`pcc_kbl_flush`,
//! `pcc_wpp_flush`) through a `preserve_all` trampoline, which consumes the words ([`drain`]).
//! `kbl` has one buffer per function, `wpp` one for the whole program (its events' order across
//! functions matters).
//!
//! A word is a path id (below the function's number of paths, so never [`MARKER`]), or
//! [`MARKER`] followed by [`ENTER`]` + table` (an activation of the function of counter table
//! `table` starts) or [`LEAVE`] (the innermost activation returns).

/// Words a stream buffer holds before the generated code flushes it; it has one more word, so
/// that a two-word marker written at the last position still fits.
pub const BUFFER_CAPACITY: u64 = 2048;
/// Size of a stream buffer in 8-byte words: the count of used words, then the words.
pub const BUFFER_WORDS: u64 = 1 + BUFFER_CAPACITY + 1;
/// Starts a two-word marker; no path id equals it (ids are below `num_paths` ≤ `u64::MAX`).
pub const MARKER: u64 = u64::MAX;
/// `MARKER, LEAVE`: the innermost activation returns.
pub const LEAVE: u64 = 0;
/// `MARKER, ENTER + table`: an activation of the function of counter table `table` starts.
pub const ENTER: u64 = 1;

/// One event of a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The current activation ran this path.
    Path(u64),
    /// An activation of the function of this counter table starts.
    Enter(u32),
    /// The innermost activation returns.
    Leave,
}

/// The events of `words`, the contents of a stream buffer.
#[inline]
pub fn events(words: &[u64]) -> impl Iterator<Item = Event> + '_ {
    let mut words = words.iter();
    std::iter::from_fn(move || {
        let word = *words.next()?;
        if word != MARKER {
            return Some(Event::Path(word));
        }
        Some(marker(*words.next()?))
    })
}

/// The event of a marker whose second word is `kind`.
#[inline]
pub fn marker(kind: u64) -> Event {
    match kind {
        LEAVE => Event::Leave,
        kind => Event::Enter((kind - ENTER) as u32),
    }
}

/// Passes the words of `buffer` (null: none) to `consume`, then empties it.
///
/// # Safety
/// `buffer` is null or a stream buffer of the program (a data object of [`BUFFER_WORDS`]
/// words, alive until the process ends) that no other thread is writing to.
pub unsafe fn drain(buffer: *mut u64, consume: impl FnOnce(&[u64])) {
    if buffer.is_null() {
        return;
    }
    // SAFETY: the caller's contract; the count never exceeds the capacity + 1 (the generated
    // code flushes as soon as it reaches the capacity), `min` guards it anyway.
    unsafe {
        let used = (*buffer).min(BUFFER_WORDS - 1) as usize;
        consume(std::slice::from_raw_parts(buffer.add(1), used));
        *buffer = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_decode_markers() {
        let words = [3, MARKER, ENTER + 7, 0, MARKER, LEAVE, 5, MARKER];
        let decoded: Vec<Event> = events(&words).collect();
        assert_eq!(
            decoded,
            [
                Event::Path(3),
                Event::Enter(7),
                Event::Path(0),
                Event::Leave,
                Event::Path(5),
            ]
        );
    }
}

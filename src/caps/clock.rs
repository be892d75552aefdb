//! Time and randomness: [`Clock`] (the wall clock and timers) and [`Random`].

#![allow(async_fn_in_trait)]

/// The wall clock and timers.
pub trait Clock {
    /// Wall-clock milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;

    /// Waits `ms` milliseconds (callers race it against their [`super::Cancel`]).
    async fn sleep(&self, ms: u32);

    /// Waits `ms` like [`Clock::sleep`], for a deadline that is usually abandoned: dropping the
    /// future before it fires releases the host's timer (so a Node process is not kept alive).
    async fn deadline(&self, ms: u32) {
        self.sleep(ms).await;
    }
}

/// Cryptographically strong randomness.
pub trait Random {
    /// Fills `buf` with random bytes.
    fn fill_random(&self, buf: &mut [u8]);
}

/// [`Clock::now_ms`] as unsigned milliseconds (a clock before 1970 reads as 0).
pub fn now_ms_u64<C: Clock + ?Sized>(clock: &C) -> u64 {
    u64::try_from(clock.now_ms()).unwrap_or(0)
}

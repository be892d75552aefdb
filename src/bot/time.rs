//! Timestamps of the bots layer: RFC 3339 UTC with milliseconds (`2026-12-01T09:30:00.250Z`),
//! as `Memory.createdAt`, `turn_start.at` and the documents use them.

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for epoch milliseconds.
pub fn rfc3339_ms(ms: i64) -> String {
    let date = crate::agent::system_prompt::utc_date(ms);
    let in_day = ms.rem_euclid(86_400_000);
    let seconds = in_day / 1000;
    format!(
        "{date}T{:02}:{:02}:{:02}.{:03}Z",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60,
        in_day % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(1_796_004_787_807), "2026-11-30T02:13:07.807Z");
        assert_eq!(rfc3339_ms(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(
            rfc3339_ms(951_782_400_000 + 86_399_999),
            "2000-02-29T23:59:59.999Z"
        );
    }
}

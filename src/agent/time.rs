//! UTC dates and timestamps as the agent and the layers over it write them: the system prompt's
//! `date_utc`, `listSessions()`'s `updatedAt`, the bots' RFC 3339 times.

/// `YYYY-MM-DD` for a Unix-epoch millisecond timestamp (proleptic Gregorian, UTC).
pub fn utc_date(now_ms: i64) -> String {
    let days = now_ms.div_euclid(86_400_000);
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let day_of_year = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// `YYYY-MM-DDTHH:MM:SSZ` for epoch milliseconds.
pub fn rfc3339_seconds(ms: i64) -> String {
    let date = utc_date(ms);
    let seconds = ms.div_euclid(1000).rem_euclid(86_400);
    format!(
        "{date}T{:02}:{:02}:{:02}Z",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for epoch milliseconds.
pub fn rfc3339_ms(ms: i64) -> String {
    let date = utc_date(ms);
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
    fn dates() {
        assert_eq!(utc_date(0), "1970-01-01");
        assert_eq!(utc_date(1_796_004_787_806), "2026-11-30");
        assert_eq!(utc_date(951_782_400_000), "2000-02-29");
    }

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339_seconds(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_seconds(1_796_004_787_807), "2026-11-30T02:13:07Z");
        assert_eq!(rfc3339_seconds(-1), "1969-12-31T23:59:59Z");
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(1_796_004_787_807), "2026-11-30T02:13:07.807Z");
        assert_eq!(rfc3339_ms(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(
            rfc3339_ms(951_782_400_000 + 86_399_999),
            "2000-02-29T23:59:59.999Z"
        );
    }
}

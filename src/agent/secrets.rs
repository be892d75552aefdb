//! The credentials a model request carries, kept out of every error text the agent records or
//! reports ([`super::model::StepError::scrubbed`] applies them to a step's failure): a provider that echoes the key it was sent ("Incorrect API key provided: sk-…")
//! has it replaced by `[redacted]` before the text reaches a retry event, a turn's error, the
//! session's turn notes or a bot's chat.

use crate::caps::HttpRequest;
use crate::gateway::error::ProviderError;
use crate::gateway::StreamError;

/// What stands in for a secret.
pub const REDACTED: &str = "[redacted]";

/// A secret shorter than this is not looked for (it would match ordinary words).
const MIN_SECRET_CHARS: usize = 8;

/// The secrets of one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secrets(Vec<String>);

impl Secrets {
    /// The credentials `request` carries: its `authorization` and `x-api-key` headers (of a
    /// bearer or basic credential, the token).
    #[must_use]
    pub fn of(request: &HttpRequest) -> Self {
        Self::from_values(request.headers.iter().filter_map(|(name, value)| {
            if !(name.eq_ignore_ascii_case("authorization")
                || name.eq_ignore_ascii_case("x-api-key"))
            {
                return None;
            }
            let value = value.trim();
            let token = match value.split_once(' ') {
                Some((scheme, token))
                    if scheme.eq_ignore_ascii_case("bearer")
                        || scheme.eq_ignore_ascii_case("basic") =>
                {
                    token.trim()
                }
                _ => value,
            };
            Some(token.to_owned())
        }))
    }

    /// `values` as secrets.
    #[must_use]
    pub fn from_values(values: impl IntoIterator<Item = String>) -> Self {
        let mut secrets: Vec<String> = Vec::new();
        for value in values {
            if value.chars().count() >= MIN_SECRET_CHARS && !secrets.contains(&value) {
                secrets.push(value);
            }
        }
        Secrets(secrets)
    }

    /// `text` with every secret replaced by [`REDACTED`].
    #[must_use]
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.0 {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
        out
    }

    fn scrub_in_place(&self, text: &mut String) {
        if self.0.iter().any(|s| text.contains(s.as_str())) {
            *text = self.scrub(text);
        }
    }

    /// Takes every secret out of a provider error's texts.
    pub fn scrub_provider(&self, error: &mut ProviderError) {
        match error {
            ProviderError::Http {
                detail,
                code,
                provider,
                ..
            } => {
                self.scrub_in_place(detail);
                for text in [code, provider].into_iter().flatten() {
                    self.scrub_in_place(text);
                }
            }
            ProviderError::ConnectionDropped { .. } | ProviderError::ErrorBodyTooLarge { .. } => {}
        }
    }

    /// Takes every secret out of a stream error event's texts.
    pub fn scrub_stream(&self, error: &mut StreamError) {
        self.scrub_in_place(&mut error.message);
        if let Some(code) = &mut error.code {
            self.scrub_in_place(code);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::model::StepError;
    use crate::caps::Method;

    #[test]
    fn a_request_s_credentials_are_scrubbed_from_errors() {
        let request = HttpRequest {
            method: Method::Post,
            url: "https://example.test/".into(),
            headers: vec![
                ("authorization".into(), "Bearer sk-live-0123456789".into()),
                ("x-api-key".into(), "k-abcdefghij".into()),
                ("content-type".into(), "application/json".into()),
                ("x-team".into(), "t".into()),
            ],
            body: Vec::new(),
        };
        let secrets = Secrets::of(&request);
        let error = StepError::Http(ProviderError::from_http(
            401,
            br#"{"error":{"message":"Incorrect API key provided: sk-live-0123456789 (also k-abcdefghij)"}}"#,
        ));
        let text = error.scrubbed(&secrets).to_string();
        assert_eq!(
            text,
            "HTTP 401: Incorrect API key provided: [redacted] (also [redacted])"
        );
        assert_eq!(secrets.scrub("application/json"), "application/json");
        // Short values are no secrets.
        assert_eq!(Secrets::from_values(["abc".to_owned()]).scrub("abc"), "abc");
    }
}

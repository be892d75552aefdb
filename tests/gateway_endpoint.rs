//! The `FX_GATEWAY_CHAT_URL` policy, as a table of inputs and outcomes.

use fx_wasm::gateway::endpoint::{ChatEndpoint, EndpointError, CANONICAL_CHAT_URL};
use proptest::prelude::*;

#[derive(Debug)]
enum Want {
    /// Accepted; the normalized chat URL and catalog URL.
    Ok(&'static str, &'static str),
    Invalid,
    Credentials,
    NotAllowed,
}

const CATALOG: &str = "https://ai-gateway.vercel.sh/coding-agent/v1/models";

fn table() -> Vec<(&'static str, Want)> {
    use Want::{Credentials, Invalid, NotAllowed, Ok};
    vec![
        // The canonical endpoint, exactly and in equivalent spellings.
        (CANONICAL_CHAT_URL, Ok(CANONICAL_CHAT_URL, CATALOG)),
        (
            "HTTPS://AI-GATEWAY.VERCEL.SH/v3/ai/language-model",
            Ok(CANONICAL_CHAT_URL, CATALOG),
        ),
        (
            "https://ai-gateway.vercel.sh:443/v3/ai/language-model",
            Ok(CANONICAL_CHAT_URL, CATALOG),
        ),
        (
            "  https://ai-gateway.vercel.sh/v3/ai/language-model\n",
            Ok(CANONICAL_CHAT_URL, CATALOG),
        ),
        // Near misses of the canonical endpoint.
        (
            "https://ai-gateway.vercel.sh/v3/ai/language-model/",
            NotAllowed,
        ),
        (
            "https://ai-gateway.vercel.sh/v3/ai/Language-Model",
            NotAllowed,
        ),
        (
            "https://ai-gateway.vercel.sh/v3/ai/language-model?x=1",
            NotAllowed,
        ),
        (
            "https://ai-gateway.vercel.sh/v3/ai/language-model?",
            NotAllowed,
        ),
        (
            "https://ai-gateway.vercel.sh:8443/v3/ai/language-model",
            NotAllowed,
        ),
        (
            "http://ai-gateway.vercel.sh/v3/ai/language-model",
            NotAllowed,
        ),
        (
            "https://ai-gateway.vercel.sh.evil.com/v3/ai/language-model",
            NotAllowed,
        ),
        ("https://evil.com/v3/ai/language-model", NotAllowed),
        (
            "https://ai-gateway.vercel.sh/v3/ai/language-model#frag",
            Credentials,
        ),
        (
            "https://user:pw@ai-gateway.vercel.sh/v3/ai/language-model",
            Credentials,
        ),
        // Loopback development gateways.
        (
            "http://127.0.0.1:8787/v3/ai/language-model",
            Ok(
                "http://127.0.0.1:8787/v3/ai/language-model",
                "http://127.0.0.1:8787/coding-agent/v1/models",
            ),
        ),
        (
            "http://localhost:3000",
            Ok(
                "http://localhost:3000/",
                "http://localhost:3000/coding-agent/v1/models",
            ),
        ),
        (
            "HTTP://LocalHost:3000/chat?x=1",
            Ok(
                "http://localhost:3000/chat?x=1",
                "http://localhost:3000/coding-agent/v1/models",
            ),
        ),
        (
            "http://[::1]:9000/x",
            Ok(
                "http://[::1]:9000/x",
                "http://[::1]:9000/coding-agent/v1/models",
            ),
        ),
        (
            "http://[0:0:0:0:0:0:0:1]:9000/x",
            Ok(
                "http://[::1]:9000/x",
                "http://[::1]:9000/coding-agent/v1/models",
            ),
        ),
        (
            "http://[::0:1]:9000/x",
            Ok(
                "http://[::1]:9000/x",
                "http://[::1]:9000/coding-agent/v1/models",
            ),
        ),
        (
            "http://localhost:80/",
            Ok(
                "http://localhost:80/",
                "http://localhost:80/coding-agent/v1/models",
            ),
        ),
        (
            "http://localhost:08080/",
            Ok(
                "http://localhost:8080/",
                "http://localhost:8080/coding-agent/v1/models",
            ),
        ),
        // Loopback without an explicit port, or otherwise off-policy.
        ("http://localhost/", NotAllowed),
        ("http://localhost:/", NotAllowed),
        ("http://127.0.0.1/v3", NotAllowed),
        ("http://[::1]/x", NotAllowed),
        ("http://localhost:0/", NotAllowed),
        ("https://localhost:8443/", NotAllowed),
        ("http://127.0.0.1.evil.com:1/", NotAllowed),
        ("http://localhost.:1/", NotAllowed),
        ("http://127.0.0.2:1/", NotAllowed),
        ("http://[::2]:1/", NotAllowed),
        ("http://example.com:8080/", NotAllowed),
        ("ftp://localhost:21/", NotAllowed),
        ("file:///etc/passwd", NotAllowed),
        ("javascript:alert(1)", NotAllowed),
        // Credentials and fragments on otherwise fine loopback URLs.
        ("http://user@localhost:1/", Credentials),
        ("http://user:pass@127.0.0.1:1/", Credentials),
        ("http://@localhost:1/", Credentials),
        ("http://evil.com@localhost:1/", Credentials),
        ("http://localhost:1@evil.com/", Credentials),
        ("http://localhost:1/#", Credentials),
        ("http://localhost:1/a#b", Credentials),
        // Not URLs.
        ("", Invalid),
        ("   ", Invalid),
        ("localhost:3000", NotAllowed), // scheme "localhost:", as browsers read it
        ("//localhost:3000/", Invalid),
        ("http:/localhost:3000/", Invalid),
        ("http:localhost:3000", Invalid),
        ("1http://localhost:1/", Invalid),
        ("http://", Invalid),
        ("http://:8080/", Invalid),
        ("http://local host:1/", Invalid),
        ("http://localhost:1/a b", Invalid),
        ("http://localhost:65536/", Invalid),
        ("http://localhost:99999999999999999999/", Invalid),
        ("http://localhost:12a/", Invalid),
        ("http://localhost:-1/", Invalid),
        ("http://[::1/", Invalid),
        ("http://[::1]x:1/", Invalid),
        ("http://[::g]:1/", Invalid),
        ("http://[1:2:3:4:5:6:7:8:9]:1/", Invalid),
        ("http://[1::2::3]:1/", Invalid),
        ("http://lоcalhost:1/", Invalid), // Cyrillic 'о'
        ("http:\\\\localhost:1\\", Invalid),
        ("http://localhost\\@evil.com:1/", Invalid),
        ("http://user@:1/", Invalid),
    ]
}

#[test]
fn url_policy_table() {
    for (input, want) in table() {
        let got = ChatEndpoint::parse(input);
        match (&want, &got) {
            (Want::Ok(url, catalog), Ok(endpoint)) => {
                assert_eq!(endpoint.chat_url(), *url, "{input:?}");
                assert_eq!(endpoint.catalog_url(), *catalog, "{input:?}");
                assert_eq!(
                    endpoint.is_canonical(),
                    *url == CANONICAL_CHAT_URL,
                    "{input:?}"
                );
            }
            (Want::Invalid, Err(EndpointError::InvalidUrl { .. }))
            | (Want::Credentials, Err(EndpointError::CredentialsOrFragment))
            | (Want::NotAllowed, Err(EndpointError::NotAllowed)) => {}
            _ => panic!("{input:?}: wanted {want:?}, got {got:?}"),
        }
    }
}

#[test]
fn absent_means_canonical_and_origin_is_reported() {
    let endpoint = ChatEndpoint::from_env(None).unwrap();
    assert_eq!(endpoint, ChatEndpoint::canonical());
    assert_eq!(endpoint.origin(), "https://ai-gateway.vercel.sh");
    assert_eq!(endpoint.catalog_url(), CATALOG);
    let local = ChatEndpoint::from_env(Some("http://[::1]:1/v")).unwrap();
    assert_eq!(local.origin(), "http://[::1]:1");
    assert!(ChatEndpoint::from_env(Some("")).is_err());
}

#[test]
fn every_message_names_the_variable_and_codes_are_distinct() {
    let errors = [
        EndpointError::NotAString,
        EndpointError::InvalidUrl {
            reason: "it is empty",
        },
        EndpointError::CredentialsOrFragment,
        EndpointError::NotAllowed,
    ];
    let mut codes: Vec<&str> = errors.iter().map(|e| e.code().as_str()).collect();
    for error in &errors {
        assert!(error.to_string().contains("FX_GATEWAY_CHAT_URL"), "{error}");
    }
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), 4);
}

proptest! {
    #[test]
    fn arbitrary_input_never_panics(text in "\\PC{0,80}") {
        let _ = ChatEndpoint::parse(&text);
    }

    #[test]
    fn url_like_input_never_panics_and_accepted_urls_are_loopback_or_canonical(
        scheme in "(http|https|HTTP|ftp)",
        user in "(|u@|u:p@|@)",
        host in "(localhost|127\\.0\\.0\\.1|\\[::1\\]|\\[[0-9a-f:]{0,12}\\]|ai-gateway\\.vercel\\.sh|[a-z.]{0,10})",
        port in "(|:|:[0-9]{0,6})",
        path in "(|/|/v3/ai/language-model|/[a-z/?#]{0,8})",
    ) {
        let text = format!("{scheme}://{user}{host}{port}{path}");
        if let Ok(endpoint) = ChatEndpoint::parse(&text) {
            let url = endpoint.chat_url();
            prop_assert!(
                url == CANONICAL_CHAT_URL
                    || url.starts_with("http://localhost:")
                    || url.starts_with("http://127.0.0.1:")
                    || url.starts_with("http://[::1]:"),
                "{} accepted as {}", text, url
            );
            prop_assert!(!url.contains('@') && !url.contains('#'));
        }
    }
}

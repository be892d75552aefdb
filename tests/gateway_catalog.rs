//! Model catalog parsing, capabilities, sorting, fallbacks and failure classes.

use fx_wasm::gateway::catalog::{
    catalog_request_headers, fallback_context_window, model_tier, provider_rank, Catalog,
    CatalogError, Effort, DEFAULT_MODEL_ID, MAX_CATALOG_BYTES,
};

#[test]
fn envelope_rules() {
    for body in [
        "[]",
        "{}",
        r#"{"data":{}}"#,
        r#"{"data":null}"#,
        "null",
        "not json",
        r#"{"object":"list"}"#,
    ] {
        assert!(
            matches!(
                Catalog::parse(body.as_bytes()),
                Err(CatalogError::Malformed { .. })
            ),
            "{body}"
        );
    }
    assert_eq!(Catalog::parse(br#"{"data":[]}"#).unwrap().models.len(), 0);
    let too_big = vec![b' '; MAX_CATALOG_BYTES + 1];
    assert!(matches!(
        Catalog::parse(&too_big),
        Err(CatalogError::Malformed { .. })
    ));
}

#[test]
fn the_sdk_test_catalog() {
    let body = br#"{"object":"list","data":[
      {"id":"sdk/catalog-alpha","type":"language","released":2,"tags":["tool-use"]},
      {"id":"test/feature-model","type":"language","released":2,"tags":["tool-use","reasoning"],
       "context_window":128000,"max_tokens":8192}]}"#;
    let catalog = Catalog::parse(body).unwrap();
    assert_eq!(catalog.models.len(), 2);
    let feature = catalog.get("test/feature-model").unwrap();
    assert!(feature.tags.tool_use && feature.tags.reasoning);
    assert!(feature.supports_reasoning());
    assert_eq!(feature.context_window, Some(128_000));
    assert_eq!(feature.max_tokens, Some(8192));
    let alpha = catalog.get("sdk/catalog-alpha").unwrap();
    assert!(!alpha.supports_reasoning() && !alpha.fast);
    assert_eq!(alpha.effective_context_window(), None);
}

#[test]
fn entry_rules_table() {
    let body = br#"{"data":[
      "not an object",
      {"type":"language"},
      {"id":""},
      {"id":7},
      {"id":"emb/x","type":"embedding"},
      {"id":"img/x","type":"image"},
      {"id":"odd/type","type":5},
      {"id":"caps/lang","type":"LANGUAGE","tags":["Tool-Use","VISION","file-input","web-search","explicit-caching","implicit-caching","fast","unknown",3]},
      {"id":"no/type","context_window":0,"max_tokens":-5,"released":"soon"},
      {"id":"effort/a","reasoning_options":[{"type":"budget","values":["x"]},{"type":"effort","values":["low","medium","high","low","bad value","",7,"x-1.2_b"]},{"type":"effort","values":["ignored"]}]},
      {"id":"effort/many","reasoning_options":[{"type":"effort","values":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r"]}]},
      {"id":"fast/toggle","fast_options":[{"type":"other"},{"type":"toggle"}]},
      {"id":"fast/price","pricing":{"fast":{"input":"1"}}},
      {"id":"fast/price-string","pricing":{"fast":"1"}},
      {"id":"openai/priority","owned_by":"openai","pricing":{"service_tiers":{"priority":{}}}},
      {"id":"other/priority","owned_by":"other","pricing":{"service_tiers":{"priority":{}},"web_search":"0.01"}},
      {"id":"fast/tag","tags":["fast"]}
    ]}"#;
    let catalog = Catalog::parse(body).unwrap();
    let ids: Vec<&str> = catalog.models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "caps/lang",
            "no/type",
            "effort/a",
            "effort/many",
            "fast/toggle",
            "fast/price",
            "fast/price-string",
            "openai/priority",
            "other/priority",
            "fast/tag"
        ]
    );
    let caps = catalog.get("caps/lang").unwrap().tags;
    assert!(caps.tool_use && caps.vision && caps.file_input && caps.web_search);
    assert!(caps.explicit_caching && caps.implicit_caching && !caps.reasoning);
    let no_type = catalog.get("no/type").unwrap();
    assert_eq!(
        (no_type.context_window, no_type.max_tokens, no_type.released),
        (None, None, None)
    );
    let effort = catalog.get("effort/a").unwrap();
    assert_eq!(effort.efforts, ["low", "medium", "high", "x-1.2_b"]);
    assert!(
        effort.supports_reasoning() && effort.lists_effort("high") && !effort.lists_effort("max")
    );
    assert_eq!(catalog.get("effort/many").unwrap().efforts.len(), 16);
    let fast: Vec<(&str, bool)> = catalog
        .models
        .iter()
        .map(|m| (m.id.as_str(), m.fast))
        .collect();
    assert_eq!(
        fast.iter()
            .filter(|(_, f)| *f)
            .map(|(id, _)| *id)
            .collect::<Vec<_>>(),
        ["fast/toggle", "fast/price", "openai/priority"]
    );
    assert_eq!(
        catalog
            .get("other/priority")
            .unwrap()
            .web_search_price
            .as_deref(),
        Some("0.01")
    );
}

#[test]
fn full_view_sorting() {
    let body = br#"{"data":[
      {"id":"zeta/plain","tags":["tool-use"],"released":1},
      {"id":"openai/gpt-5-mini","tags":["tool-use"],"released":9},
      {"id":"anthropic/claude-opus-5","tags":["tool-use"],"released":5},
      {"id":"openai/gpt-5","tags":["tool-use"],"released":6},
      {"id":"anthropic/claude-sonnet-5","tags":["tool-use"],"released":6},
      {"id":"google/gemini-flash","tags":["tool-use"],"released":3},
      {"id":"google/gemini-pro-preview","tags":["tool-use"],"released":3},
      {"id":"moonshotai/kimi-k3","tags":["tool-use"],"released":8},
      {"id":"deepseek/deepseek-v4","tags":["tool-use"],"released":8},
      {"id":"no/tools","released":99},
      {"id":"anthropic/claude-haiku-5","tags":["tool-use"]}
    ]}"#;
    let catalog = Catalog::parse(body).unwrap();
    let order: Vec<&str> = catalog.sorted().iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        order,
        [
            "anthropic/claude-sonnet-5",
            "anthropic/claude-opus-5",
            "openai/gpt-5",
            "deepseek/deepseek-v4",
            "moonshotai/kimi-k3",
            "zeta/plain",
            "google/gemini-flash",
            "anthropic/claude-haiku-5",
            "openai/gpt-5-mini",
            "google/gemini-pro-preview",
            "no/tools",
        ]
    );
    assert_eq!(model_tier("openai/o3"), 0);
    assert_eq!(model_tier("xai/grok-4-fast"), 0);
    assert_eq!(model_tier("google/gemini-2.5-flash-lite"), 3);
    assert_eq!(provider_rank("Anthropic/x"), 0);
    assert_eq!(provider_rank("alibaba/x"), 7);
    assert_eq!(provider_rank("zai/x"), 8);
}

#[test]
fn fallback_context_windows() {
    let cases = [
        ("anthropic/claude-haiku-4.5", Some(200_000)),
        ("anthropic/claude-opus-4.6", Some(1_000_000)),
        ("anthropic/claude-opus-4-7", Some(1_000_000)),
        ("anthropic/claude-sonnet-4.6", Some(1_000_000)),
        ("anthropic/claude-sonnet-4-6", Some(1_000_000)),
        ("anthropic/claude-fable-5", Some(1_000_000)),
        ("anthropic/claude-sonnet-5", Some(1_000_000)),
        ("anthropic/claude-opus-4.5", Some(200_000)),
        ("openai/gpt-5.1-codex", Some(256_000)),
        ("openai/o3-mini", Some(200_000)),
        ("openai/gpt-4.1", Some(128_000)),
        ("xai/grok-4", Some(131_072)),
        ("google/gemini-3-pro", Some(1_000_000)),
        ("moonshotai/kimi-k3", None),
        ("anthropic", None),
    ];
    for (id, window) in cases {
        assert_eq!(fallback_context_window(id), window, "{id}");
    }
    assert_eq!(DEFAULT_MODEL_ID, "moonshotai/kimi-k3");
}

#[test]
fn effort_parsing() {
    let cases = [
        ("auto", Some(Effort::Auto)),
        ("Adaptive", Some(Effort::Auto)),
        (" default ", Some(Effort::Auto)),
        ("high", Some(Effort::Named("high".into()))),
        ("x-1.2_b", Some(Effort::Named("x-1.2_b".into()))),
        ("", None),
        ("two words", None),
        ("é", None),
    ];
    for (text, expected) in cases {
        assert_eq!(Effort::parse(text), expected, "{text:?}");
    }
    assert_eq!(
        Effort::parse(&"a".repeat(64)),
        Some(Effort::Named("a".repeat(64)))
    );
    assert_eq!(Effort::parse(&"a".repeat(65)), None);
}

#[test]
fn failure_classes() {
    let cases = [
        (401, "FX_CATALOG_AUTHENTICATION", false),
        (403, "FX_CATALOG_AUTHENTICATION", false),
        (429, "FX_CATALOG_RATE_LIMITED", true),
        (500, "FX_CATALOG_UNAVAILABLE", true),
        (502, "FX_CATALOG_UNAVAILABLE", true),
        (503, "FX_CATALOG_UNAVAILABLE", true),
        (504, "FX_CATALOG_UNAVAILABLE", true),
        (501, "FX_CATALOG_HTTP_STATUS", false),
        (404, "FX_CATALOG_HTTP_STATUS", false),
    ];
    for (status, code, retryable) in cases {
        let error = CatalogError::from_status(status);
        assert_eq!(
            (error.code().as_str(), error.is_retryable()),
            (code, retryable),
            "{status}"
        );
        assert!(error.to_string().contains(&status.to_string()), "{error}");
        assert_eq!(error.is_authentication(), status == 401 || status == 403);
    }
    assert_eq!(catalog_request_headers(None, None), []);
    assert_eq!(catalog_request_headers(Some(""), Some("")), []);
    assert_eq!(
        catalog_request_headers(Some("k"), Some("t")),
        [
            ("authorization", "Bearer k".to_owned()),
            ("x-vercel-ai-gateway-team", "t".to_owned())
        ]
    );
}

#[test]
fn tiers_match_whole_words() {
    let cases = [
        ("google/gemini-3-pro", 0),
        ("google/gemini-2.5-flash", 2),
        ("openai/gpt-5.1-codex", 0),
        ("openai/gpt-50", 1),
        ("openai/o4-mini", 3),
        ("anthropic/claude-opus-4.8", 0),
        ("xai/grok-4.1-fast-reasoning", 0),
        ("moonshotai/kimi-k3", 1),
        ("zai/glm-5-beta", 4),
    ];
    for (id, tier) in cases {
        assert_eq!(model_tier(id), tier, "{id}");
    }
}

const NEAR_IDS: [&str; 7] = [
    "moonshotai/kimi-k3",
    "openai/gpt-5",
    "openai/gpt-5-mini",
    "openai/gpt-4.1",
    "anthropic/claude-sonnet-4.5",
    "anthropic/claude-haiku-4.5",
    "xai/grok-4",
];

#[test]
fn near_names_are_found_best_first() {
    use fx_wasm::gateway::catalog::nearest;
    assert_eq!(
        nearest("gpt-nonexistent", NEAR_IDS, 3),
        ["openai/gpt-5", "openai/gpt-4.1", "openai/gpt-5-mini"]
    );
    assert_eq!(
        nearest("claude-sonet", NEAR_IDS, 1),
        ["anthropic/claude-sonnet-4.5"]
    );
    assert_eq!(nearest("kimi", NEAR_IDS, 2)[0], "moonshotai/kimi-k3");
    assert_eq!(nearest("GROK-4", NEAR_IDS, 1), ["xai/grok-4"]);
    assert_eq!(nearest("modle", ["model", "models", "help"], 1), ["model"]);
}

#[test]
fn unrelated_words_suggest_nothing() {
    use fx_wasm::gateway::catalog::nearest;
    assert!(nearest("no/such", NEAR_IDS, 3).is_empty());
    assert!(nearest("zzz", ["help", "model", "status"], 1).is_empty());
    assert!(nearest("", NEAR_IDS, 3).is_empty());
}

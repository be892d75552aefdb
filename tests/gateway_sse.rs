//! SSE decoder and completion tests: streams re-fed at every chunk boundary and byte by byte,
//! UTF-8 splits, CRLF, comments, `[DONE]`, missing `finish`, oversized lines, garbage.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use fx_wasm::gateway::completion::{Disposition, StreamAccumulator};
use fx_wasm::gateway::events::{FinishReason, SseEvent, ToolCall};
use fx_wasm::gateway::sse::{SseDecoder, SseError, StreamEnd};
use proptest::prelude::*;

/// The reference's example stream: metadata, text, a streamed tool call, finish, done.
const TOOL_STREAM: &str = concat!(
    "data: {\"type\":\"response-metadata\",\"id\":\"gen_x\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"modelId\":\"moonshotai/kimi-k3\"}\n\n",
    "data: {\"type\":\"start\"}\n\n",
    "data: {\"type\":\"text-delta\",\"id\":\"t0\",\"delta\":\"Let me look.\"}\n\n",
    "data: {\"type\":\"tool-input-start\",\"id\":\"call_1\",\"toolName\":\"terminal\"}\n\n",
    "data: {\"type\":\"tool-input-delta\",\"id\":\"call_1\",\"delta\":\"{\\\"action\\\":\\\"exec\\\",\"}\n\n",
    "data: {\"type\":\"tool-input-delta\",\"id\":\"call_1\",\"delta\":\"\\\"command\\\":\\\"ls\\\"}\"}\n\n",
    "data: {\"type\":\"tool-input-end\",\"id\":\"call_1\"}\n\n",
    "data: {\"type\":\"tool-call\",\"toolCallId\":\"call_1\",\"toolName\":\"terminal\",\"input\":\"{\\\"action\\\":\\\"exec\\\",\\\"command\\\":\\\"ls\\\"}\"}\n\n",
    "data: {\"type\":\"finish\",\"finishReason\":{\"unified\":\"tool-calls\",\"raw\":\"tool_calls\"},\"usage\":{\"inputTokens\":{\"total\":1200,\"cacheRead\":7,\"cacheWrite\":3},\"outputTokens\":{\"total\":40,\"reasoning\":5}},\"providerMetadata\":{\"gateway\":{\"cost\":\"0.0012\",\"routing\":{\"canonicalSlug\":\"moonshotai/kimi-k3\"},\"generationId\":\"gen_x\"}}}\n\n",
    "data: [DONE]\n\n",
);

/// Text with multi-byte characters, CRLF line ends, comments, an unrelated SSE field, garbage
/// payloads, reasoning, and the sdk test's finish.
const TEXT_STREAM: &str = concat!(
    ": keep-alive comment\r\n",
    "event: message\r\n",
    "id: 7\r\n",
    "data: {\"type\":\"reasoning-delta\",\"delta\":\"thinking…\"}\r\n",
    "data: {\"type\":\"text-delta\",\"delta\":\"héllo \"}\r\n\r\n",
    "data: not json at all\r\n",
    "data: [1,2,3]\r\n",
    "data: {\"delta\":\"no type\"}\r\n",
    "data: {\"type\":7,\"delta\":\"numeric type\"}\r\n",
    "data:{\"type\":\"text-delta\",\"delta\":\"no space after colon\"}\r\n",
    "data: {\"type\":\"text-delta\",\"id\":\"answer\",\"delta\":\"wörld ☃ 𝄞\"}\r\n",
    "data: {\"type\":\"text-delta\",\"delta\":\"\"}\r\n",
    "data: {\"type\":\"text-delta\",\"delta\":\"\\u00e9\\n\"}\r\n",
    "data: {\"type\":\"source\",\"url\":\"https://example.com\"}\r\n",
    "data: {\"type\":\"finish\",\"finishReason\":{\"unified\":\"stop\",\"raw\":\"stop\"},\"usage\":{\"inputTokens\":{\"total\":3},\"outputTokens\":{\"total\":2}}}\r\n",
    "data: {\"type\":\"text-delta\",\"delta\":\"after finish is ignored\"}\r\n",
);

/// The sdk workspace test: an inline-input call and a streamed-input call without `input`.
const WORKSPACE_STREAM: &str = concat!(
    "data: {\"type\":\"tool-call\",\"toolCallId\":\"workspace-success\",\"toolName\":\"terminal\",\"input\":{\"action\":\"exec\",\"command\":\"printf adapter-success\"}}\n",
    "data: {\"type\":\"tool-input-start\",\"id\":\"x\",\"toolName\":\"terminal\"}\n",
    "data: {\"type\":\"tool-input-delta\",\"id\":\"x\",\"delta\":\"{\\\"command\\\":\\\"echo ok\\\",\"}\n",
    "data: {\"type\":\"tool-input-delta\",\"id\":\"x\",\"delta\":\"\\\"action\\\":\\\"exec\\\"}\"}\n",
    "data: {\"type\":\"tool-input-end\",\"id\":\"x\"}\n",
    "data: {\"type\":\"tool-call\",\"toolCallId\":\"x\",\"toolName\":\"terminal\"}\n",
    "data: {\"type\":\"tool-call\",\"toolCallId\":\"bad\",\"toolName\":\"terminal\",\"input\":\"{not json\"}\n",
    "data: {\"type\":\"tool-call\",\"toolCallId\":\"arr\",\"toolName\":\"terminal\",\"input\":[1,2]}\n",
    "data: {\"type\":\"tool-call\",\"toolCallId\":\"num\",\"toolName\":\"terminal\",\"input\":5}\n",
    "data: {\"type\":\"tool-call\",\"toolCallId\":\"none\",\"toolName\":\"terminal\"}\n",
    "data: {\"type\":\"tool-call\",\"toolCallId\":\"web\",\"toolName\":\"web_search\",\"input\":{},\"providerExecuted\":true}\n",
    "data: {\"type\":\"tool-result\",\"toolCallId\":\"web\",\"result\":{\"hits\":1},\"preliminary\":false}\n",
    "data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"  busy  \"}}\n",
    "data: {\"type\":\"finish\",\"finishReason\":{\"unified\":\"tool-calls\",\"raw\":\"tool-calls\"}}\n",
    "data: [DONE]\n",
);

const STREAMS: [&str; 3] = [TOOL_STREAM, TEXT_STREAM, WORKSPACE_STREAM];

fn decode_chunks(chunks: &[&[u8]], coalesce: bool) -> (Vec<SseEvent>, StreamEnd) {
    let mut decoder = SseDecoder::new().with_coalescing(coalesce);
    let mut out = Vec::new();
    for chunk in chunks {
        decoder.feed(chunk, &mut out).unwrap();
    }
    let end = decoder.end(&mut out).unwrap();
    (out, end)
}

fn decode(stream: &str) -> (Vec<SseEvent>, StreamEnd) {
    decode_chunks(&[stream.as_bytes()], false)
}

#[test]
fn tool_stream_decodes_to_the_expected_events() {
    let (events, end) = decode(TOOL_STREAM);
    assert!(end.finished);
    assert!(
        !end.done_marker,
        "finish ends the stream before [DONE] is read"
    );
    assert_eq!(events.len(), 8, "{events:#?}");
    assert_eq!(events[1], SseEvent::TextDelta("Let me look.".into()));
    let SseEvent::ToolCall(call) = &events[6] else {
        panic!("{:?}", events[6])
    };
    assert_eq!(
        call,
        &ToolCall {
            id: "call_1".into(),
            name: "terminal".into(),
            arguments_json: "{\"action\":\"exec\",\"command\":\"ls\"}".into(),
            malformed: false,
            provider_executed: false,
        }
    );
    let SseEvent::Finish(finish) = &events[7] else {
        panic!()
    };
    assert_eq!(finish.reason, FinishReason::ToolCalls);
    assert_eq!(finish.raw_reason.as_deref(), Some("tool_calls"));
    assert_eq!(finish.usage.input_tokens, Some(1200));
    assert_eq!(finish.usage.output_tokens, Some(40));
    assert_eq!(finish.usage.cache_read_tokens, Some(7));
    assert_eq!(finish.usage.cache_write_tokens, Some(3));
    assert_eq!(finish.usage.reasoning_tokens, Some(5));
    assert_eq!(finish.gateway.cost.as_deref(), Some("0.0012"));
    assert_eq!(
        finish.gateway.canonical_slug.as_deref(),
        Some("moonshotai/kimi-k3")
    );
    assert_eq!(finish.gateway.generation_id.as_deref(), Some("gen_x"));

    let mut acc = StreamAccumulator::new();
    acc.push_all(&mut events.clone());
    let completion = acc.into_completion();
    assert_eq!(completion.text, "Let me look.");
    assert_eq!(completion.tool_calls.len(), 1);
    assert_eq!(completion.disposition(), Disposition::Completed);
    assert_eq!(
        completion.metadata.unwrap().model_id.as_deref(),
        Some("moonshotai/kimi-k3")
    );
}

#[test]
fn text_stream_skips_comments_garbage_and_other_fields() {
    let (events, end) = decode(TEXT_STREAM);
    assert!(end.finished);
    let texts: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            SseEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["héllo ", "wörld ☃ 𝄞", "é\n"]);
    assert_eq!(events[0], SseEvent::ReasoningDelta("thinking…".into()));
    let (coalesced, _) = decode_chunks(&[TEXT_STREAM.as_bytes()], true);
    let mut acc = StreamAccumulator::new();
    acc.push_all(&mut coalesced.clone());
    let completion = acc.into_completion();
    assert_eq!(completion.text, "héllo wörld ☃ 𝄞é\n");
    assert_eq!(completion.disposition(), Disposition::Completed);
    assert_eq!(completion.usage.input_tokens, Some(3));
    assert_eq!(
        coalesced.len(),
        3,
        "reasoning, one merged text, finish: {coalesced:?}"
    );
}

#[test]
fn workspace_stream_resolves_every_input_form() {
    let (events, _) = decode(WORKSPACE_STREAM);
    let calls: Vec<&ToolCall> = events
        .iter()
        .filter_map(|e| match e {
            SseEvent::ToolCall(c) => Some(c),
            _ => None,
        })
        .collect();
    let summary: Vec<(&str, &str, bool)> = calls
        .iter()
        .map(|c| (c.id.as_str(), c.arguments_json.as_str(), c.malformed))
        .collect();
    assert_eq!(
        summary,
        [
            (
                "workspace-success",
                "{\"action\":\"exec\",\"command\":\"printf adapter-success\"}",
                false
            ),
            ("x", "{\"command\":\"echo ok\",\"action\":\"exec\"}", false),
            ("bad", "{}", true),
            ("arr", "[1,2]", false),
            ("num", "{}", true),
            ("none", "{}", true),
            ("web", "{}", false),
        ]
    );
    assert!(calls[6].provider_executed);
    let mut acc = StreamAccumulator::new();
    acc.push_all(&mut events.clone());
    let completion = acc.into_completion();
    assert_eq!(completion.provider_results.len(), 1);
    assert_eq!(completion.provider_results[0].result_json, "{\"hits\":1}");
    let error = completion.provider_error.clone().unwrap();
    assert_eq!(error.code.as_deref(), Some("overloaded_error"));
    assert_eq!(error.message, "busy");
    assert_eq!(completion.local_tool_calls().count(), 6);
    // An `error` event is never dropped, even when an ordinary `finish` follows it (fx's table
    // would call this completed; see docs/DECISIONS.md).
    assert_eq!(completion.disposition(), Disposition::ProviderFailure);
}

#[test]
fn every_two_chunk_split_gives_identical_events() {
    for stream in STREAMS {
        let bytes = stream.as_bytes();
        let whole = decode(stream);
        let whole_coalesced = decode_chunks(&[bytes], true);
        for cut in 0..=bytes.len() {
            let (a, b) = bytes.split_at(cut);
            assert_eq!(decode_chunks(&[a, b], false), whole, "cut at {cut}");
            assert_eq!(
                decode_chunks(&[a, b], true),
                whole_coalesced,
                "cut at {cut}"
            );
        }
    }
}

#[test]
fn every_three_chunk_split_of_the_tool_stream_gives_identical_events() {
    let bytes = TOOL_STREAM.as_bytes();
    let whole = decode(TOOL_STREAM);
    for first in (0..=bytes.len()).step_by(29) {
        for second in first..=bytes.len() {
            let chunks = [&bytes[..first], &bytes[first..second], &bytes[second..]];
            assert_eq!(
                decode_chunks(&chunks, false),
                whole,
                "cuts at {first}, {second}"
            );
        }
    }
}

#[test]
fn byte_by_byte_gives_identical_events() {
    for stream in STREAMS {
        let bytes = stream.as_bytes();
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(decode_chunks(&singles, false), decode(stream));
        assert_eq!(decode_chunks(&singles, true), decode_chunks(&[bytes], true));
    }
}

#[test]
fn a_character_split_inside_its_utf8_bytes_is_rejoined() {
    let stream = "data: {\"type\":\"text-delta\",\"delta\":\"𝄞☃é\"}\n";
    let bytes = stream.as_bytes();
    let start = stream.find('𝄞').unwrap();
    for cut in start + 1..start + 4 {
        let (events, _) = decode_chunks(&[&bytes[..cut], &bytes[cut..]], false);
        assert_eq!(events, [SseEvent::TextDelta("𝄞☃é".into())], "cut at {cut}");
    }
}

#[test]
fn done_marker_ends_the_stream_and_later_bytes_are_ignored() {
    for marker in ["data: [DONE]", "DONE", "data: [DONE]\r"] {
        let stream = format!(
            "data: {{\"type\":\"text-delta\",\"delta\":\"a\"}}\n{marker}\ndata: {{\"type\":\"text-delta\",\"delta\":\"b\"}}\n"
        );
        let (events, end) = decode(&stream);
        assert_eq!(events, [SseEvent::TextDelta("a".into())], "{marker:?}");
        assert!(end.done_marker && !end.finished);
    }
    let (events, _) = decode("data: [DONE] \ndata: {\"type\":\"text-delta\",\"delta\":\"b\"}\n");
    assert_eq!(events.len(), 1, "only the exact marker ends the stream");
}

#[test]
fn a_stream_without_finish_is_interrupted() {
    let (events, end) =
        decode("data: {\"type\":\"text-delta\",\"delta\":\"partial\"}\n\ndata: [DONE]\n");
    assert!(!end.finished);
    let mut acc = StreamAccumulator::new();
    acc.push_all(&mut events.clone());
    let completion = acc.into_completion();
    assert_eq!(completion.text, "partial");
    assert_eq!(completion.disposition(), Disposition::Interrupted);

    let (events, end) = decode("");
    assert!(events.is_empty() && !end.finished && !end.done_marker);
}

#[test]
fn a_final_line_without_newline_is_decoded_at_end() {
    let (events, end) = decode(
        "data: {\"type\":\"finish\",\"finishReason\":{\"unified\":\"stop\",\"raw\":\"stop\"}}",
    );
    assert!(end.finished);
    assert_eq!(events.len(), 1);
}

#[test]
fn oversized_lines_are_a_typed_error_and_stick() {
    let limit = 64;
    let long_line = format!("data: {}\n", "x".repeat(100));
    // Whole line in one chunk.
    let mut decoder = SseDecoder::new().with_max_line_bytes(limit);
    let mut out = Vec::new();
    let error = decoder.feed(long_line.as_bytes(), &mut out).unwrap_err();
    assert_eq!(error, SseError::LineTooLong { limit });
    assert_eq!(error.code(), "FX_GATEWAY_SSE_EVENT_TOO_LARGE");
    assert_eq!(decoder.feed(b"data: {}\n", &mut out).unwrap_err(), error);
    assert_eq!(decoder.end(&mut out).unwrap_err(), error);
    // Byte by byte, and without any newline at all.
    for stream in [long_line.clone(), "y".repeat(100)] {
        let mut decoder = SseDecoder::new().with_max_line_bytes(limit);
        let result: Result<(), SseError> = stream
            .as_bytes()
            .chunks(1)
            .try_for_each(|c| decoder.feed(c, &mut out));
        assert_eq!(result.unwrap_err(), SseError::LineTooLong { limit });
    }
    // A line exactly at the limit is fine.
    let exact = format!(
        "data: {{\"type\":\"text-delta\",\"delta\":\"{}\"}}\n",
        "z".repeat(20)
    );
    let mut decoder = SseDecoder::new().with_max_line_bytes(exact.len() - 1);
    let mut out = Vec::new();
    decoder.feed(exact.as_bytes(), &mut out).unwrap();
    assert_eq!(out.len(), 1);
}

#[test]
fn unknown_finish_reasons_are_a_typed_error() {
    let mut decoder = SseDecoder::new();
    let mut out = Vec::new();
    let error = decoder
        .feed(
            b"data: {\"type\":\"finish\",\"finishReason\":{\"unified\":\"melted\"}}\n",
            &mut out,
        )
        .unwrap_err();
    assert_eq!(
        error,
        SseError::InvalidFinishReason {
            value: "melted".into()
        }
    );
    assert_eq!(error.code(), "FX_GATEWAY_INVALID_FINISH_REASON");
}

#[test]
fn finish_reason_forms_and_usage_shapes() {
    let cases = [
        ("{\"unified\":\"length\"}", FinishReason::Length),
        ("\"content-filter\"", FinishReason::ContentFilter),
        ("{\"unified\":\"error\",\"raw\":\"x\"}", FinishReason::Error),
        ("{\"raw\":\"only raw\"}", FinishReason::Other),
        ("null", FinishReason::Other),
    ];
    for (reason, expected) in cases {
        let line = format!(
            "data: {{\"type\":\"finish\",\"finishReason\":{reason},\"usage\":{{\"inputTokens\":5,\"outputTokens\":{{\"total\":-1}}}},\"providerMetadata\":{{\"gateway\":{{\"cost\":\"-1\"}}}}}}\n"
        );
        let (events, _) = decode(&line);
        let [SseEvent::Finish(finish)] = events.as_slice() else {
            panic!("{reason}: {events:?}")
        };
        assert_eq!(finish.reason, expected, "{reason}");
        assert_eq!(finish.usage.input_tokens, Some(5));
        assert_eq!(finish.usage.output_tokens, None);
        assert_eq!(finish.gateway.cost, None);
    }
}

fn completion_of(lines: &str) -> Disposition {
    let (events, _) = decode(lines);
    let mut acc = StreamAccumulator::new();
    for event in events {
        acc.push(event);
    }
    acc.completion().disposition()
}

#[test]
fn disposition_table() {
    let call = "data: {\"type\":\"tool-call\",\"toolCallId\":\"c\",\"toolName\":\"terminal\",\"input\":{}}\n";
    let web = "data: {\"type\":\"tool-call\",\"toolCallId\":\"w\",\"toolName\":\"web_search\",\"input\":{},\"providerExecuted\":true}\n";
    let finish = |reason: &str| {
        format!("data: {{\"type\":\"finish\",\"finishReason\":{{\"unified\":\"{reason}\"}}}}\n")
    };
    let cases: Vec<(String, Disposition)> = vec![
        (call.to_owned(), Disposition::Interrupted),
        (
            format!("{call}{}", finish("error")),
            Disposition::ProviderFailure,
        ),
        (finish("content-filter"), Disposition::ProviderFailure),
        (
            format!("{call}{}", finish("length")),
            Disposition::LengthLimited,
        ),
        (
            format!("{call}{}", finish("tool-calls")),
            Disposition::Completed,
        ),
        (finish("tool-calls"), Disposition::InvalidCompletion),
        (finish("stop"), Disposition::Completed),
        (format!("{web}{}", finish("stop")), Disposition::Completed),
        (
            format!("{call}{}", finish("stop")),
            Disposition::InvalidCompletion,
        ),
        (
            format!("{call}{}", finish("other")),
            Disposition::InvalidCompletion,
        ),
        (finish("other"), Disposition::Completed),
    ];
    for (stream, expected) in cases {
        assert_eq!(completion_of(&stream), expected, "{stream}");
    }
}

#[test]
fn error_event_shapes() {
    let cases = [
        (
            "{\"type\":\"error\",\"code\":\"c1\",\"message\":\"m1\"}",
            Some("c1"),
            "m1",
        ),
        (
            "{\"type\":\"error\",\"error\":\"plain text\"}",
            None,
            "plain text",
        ),
        (
            "{\"type\":\"error\",\"providerError\":{\"code\":\"p\",\"detail\":\"d\"}}",
            Some("p"),
            "d",
        ),
        ("{\"type\":\"error\",\"reason\":\"r\"}", None, "r"),
    ];
    for (payload, code, message) in cases {
        let (events, _) = decode(&format!("data: {payload}\n"));
        let [SseEvent::Error(error)] = events.as_slice() else {
            panic!("{payload}")
        };
        assert_eq!(error.code.as_deref(), code, "{payload}");
        assert_eq!(error.message, message, "{payload}");
    }
    let long = format!(
        "data: {{\"type\":\"error\",\"message\":\"{}\"}}\n",
        "é".repeat(400)
    );
    let (events, _) = decode(&long);
    let [SseEvent::Error(error)] = events.as_slice() else {
        panic!()
    };
    assert!(error.message.len() <= 600 && error.message.len() >= 598);
}

#[test]
fn metadata_conflicts_are_flagged() {
    let stream = concat!(
        "data: {\"type\":\"response-metadata\",\"id\":\"a\",\"modelId\":\"m/1\"}\n",
        "data: {\"type\":\"response-metadata\",\"id\":\"a\",\"modelId\":\"m/2\"}\n",
    );
    let (events, _) = decode(stream);
    let mut acc = StreamAccumulator::new();
    acc.push_all(&mut events.clone());
    assert!(acc.completion().metadata_conflict);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_chunkings_give_identical_events(cuts in proptest::collection::vec(0usize..2000, 0..40), which in 0usize..3) {
        let stream = STREAMS[which];
        let bytes = stream.as_bytes();
        let mut points: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut chunks = Vec::new();
        let mut last = 0;
        for p in points {
            chunks.push(&bytes[last..p]);
            last = p;
        }
        chunks.push(&bytes[last..]);
        prop_assert_eq!(decode_chunks(&chunks, false), decode(stream));
        prop_assert_eq!(decode_chunks(&chunks, true), decode_chunks(&[bytes], true));
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..512), split in 0usize..512) {
        let split = split.min(data.len());
        let mut decoder = SseDecoder::new().with_max_line_bytes(128);
        let mut out = Vec::new();
        let _ = decoder.feed(&data[..split], &mut out);
        let _ = decoder.feed(&data[split..], &mut out);
        let _ = decoder.end(&mut out);
    }

    #[test]
    fn arbitrary_data_lines_never_panic(payload in "\\PC{0,200}") {
        let line = format!("data: {payload}\n");
        let _ = SseDecoder::new().feed(line.as_bytes(), &mut Vec::new());
        let line = format!("data: {{\"type\":\"tool-call\",\"input\":{payload}}}\n");
        let _ = SseDecoder::new().feed(line.as_bytes(), &mut Vec::new());
    }
}

#[test]
fn tricky_text_delta_payloads_decode_like_json() {
    let cases: [(&[u8], Option<&str>); 16] = [
        (br#"{"type":"text-delta","delta":"a\"b"}"#, Some("a\"b")),
        (br#"{"type":"text-delta","delta":"\u00e9\n"}"#, Some("é\n")),
        (br#"{"type":"text-delta","delta":"a","delta":"b"}"#, None),
        (
            br#"{"type":"text-delta","type":"text-delta","delta":"a"}"#,
            None,
        ),
        (br#"{"type":"text-delta","id":"x","delta":"a"} x"#, None),
        (br#"{"type":"text-delta","delta":"a"}   "#, Some("a")),
        (br#" { "type" : "text-delta" , "delta" : "a" } "#, Some("a")),
        (
            br#"{"type":"text-delta","delta":"a","extra":{"n":[1,2]}}"#,
            Some("a"),
        ),
        (br#"{"type":"text-delta","delta":"a",}"#, None),
        (b"{\"type\":\"text-delta\",\"delta\":\"a\tb\"}", None),
        (br#"{"type":"text-delta","id":5,"delta":"a"}"#, None),
        (b"{\"type\":\"text-delta\",\"delta\":\"\xff\"}", None),
        (
            b"{\"type\":\"text-delta\",\"id\":\"\xff\",\"delta\":\"a\"}",
            None,
        ),
        (br#"{"type":"text-delta"}"#, None),
        (br#"{"type":"text-delta","delta":null}"#, None),
        (br#"{"delta":"first","type":"text-delta"}"#, Some("first")),
    ];
    for (payload, expected) in cases {
        let mut line = b"data: ".to_vec();
        line.extend_from_slice(payload);
        line.push(b'\n');
        let mut out = Vec::new();
        SseDecoder::new().feed(&line, &mut out).unwrap();
        let expected: Vec<SseEvent> = expected
            .map(|t| SseEvent::TextDelta(t.to_owned()))
            .into_iter()
            .collect();
        assert_eq!(out, expected, "{}", String::from_utf8_lossy(payload));
    }
}

fn completion_from(stream: &str) -> fx_wasm::gateway::completion::Completion {
    let (events, _) = decode(stream);
    let mut acc = StreamAccumulator::new();
    for event in events {
        acc.push(event);
    }
    acc.into_completion()
}

#[test]
fn billing_needs_every_field_and_consistent_counts() {
    let billing = completion_from(TOOL_STREAM).billing().unwrap();
    assert_eq!(billing.timestamp, "2025-01-01T00:00:00.000Z");
    assert_eq!(billing.cost, "0.0012");
    assert_eq!(billing.canonical_slug, "moonshotai/kimi-k3");
    assert_eq!(
        (
            billing.input_tokens,
            billing.cache_read_tokens,
            billing.cache_write_tokens
        ),
        (1200, 7, 3)
    );
    assert_eq!(
        (
            billing.output_tokens,
            billing.reasoning_tokens,
            billing.web_search_calls
        ),
        (40, 5, 0)
    );
    assert!(
        completion_from(TEXT_STREAM).billing().is_none(),
        "no metadata, cost or slug"
    );
    let inconsistent = TOOL_STREAM.replace("\"reasoning\":5", "\"reasoning\":41");
    assert!(completion_from(&inconsistent).billing().is_none());
    let bad_time = TOOL_STREAM.replace("2025-01-01T00:00:00.000Z", "yesterday");
    assert!(completion_from(&bad_time).billing().is_none());
    let searches = TOOL_STREAM.replace(
        "data: {\"type\":\"finish\"",
        "data: {\"type\":\"tool-call\",\"toolCallId\":\"w\",\"toolName\":\"web_search\",\"input\":{},\"providerExecuted\":true}\n\ndata: {\"type\":\"finish\"",
    );
    assert_eq!(
        completion_from(&searches)
            .billing()
            .unwrap()
            .web_search_calls,
        1
    );
}

#[test]
fn retry_causes_of_completions() {
    use fx_wasm::gateway::error::RetryCause;
    let finish = |reason: &str| {
        format!("data: {{\"type\":\"finish\",\"finishReason\":{{\"unified\":\"{reason}\"}}}}\n")
    };
    assert_eq!(
        completion_from("data: {\"type\":\"text-delta\",\"delta\":\"a\"}\n").retry_cause(),
        Some(RetryCause::ResponseInterrupted)
    );
    assert_eq!(
        completion_from(&finish("error")).retry_cause(),
        Some(RetryCause::ProviderUnavailable)
    );
    assert_eq!(
        completion_from(&finish("content-filter")).retry_cause(),
        None
    );
    assert_eq!(completion_from(&finish("stop")).retry_cause(), None);
    assert_eq!(completion_from(&finish("length")).retry_cause(), None);
}

#[test]
fn continuation_overlap_table() {
    use fx_wasm::gateway::completion::continuation_overlap;
    let cases = [
        ("Hello wor", "world!", 3),
        ("Hello wor", "Hello world!", 9),
        ("Hello", "Help", 0),
        ("abcabc", "abcabcd", 6),
        ("abc", "xyz", 0),
        ("", "abc", 0),
        ("abc", "", 0),
        ("naïve café", "café au lait", 5),
        ("ends with é", "éclair", 2),
    ];
    for (partial, continued, expected) in cases {
        assert_eq!(
            continuation_overlap(partial, continued),
            expected,
            "{partial:?} {continued:?}"
        );
    }
    let long = "x".repeat(10_000);
    assert_eq!(continuation_overlap(&long, &long), 4096);
}

#[test]
fn tool_call_identity_checks() {
    use fx_wasm::gateway::completion::ToolCallIssue;
    let call = |id: &str, name: &str, extra: &str| {
        format!("data: {{\"type\":\"tool-call\",\"toolCallId\":\"{id}\",\"toolName\":\"{name}\",\"input\":{{}}{extra}}}\n")
    };
    let web = ",\"providerExecuted\":true";
    let result = |id: &str| {
        format!("data: {{\"type\":\"tool-result\",\"toolCallId\":\"{id}\",\"result\":1}}\n")
    };
    let cases: Vec<(String, Result<(), ToolCallIssue>)> = vec![
        (format!("{}{}", call("a", "t", ""), call("b", "t", "")), Ok(())),
        (format!("{}{}", call("w", "web_search", web), result("w")), Ok(())),
        (call("", "t", ""), Err(ToolCallIssue::EmptyId { index: 0 })),
        ("data: {\"type\":\"tool-call\",\"toolName\":\"t\"}\n".to_owned(), Err(ToolCallIssue::EmptyId { index: 0 })),
        (format!("{}{}", call("a", "t", ""), call("b", "", "")), Err(ToolCallIssue::EmptyName { index: 1 })),
        (format!("{}{}", call("a", "t", ""), call("a", "u", "")), Err(ToolCallIssue::DuplicateId { id: "a".into() })),
        (
            "data: {\"type\":\"tool-call\",\"toolCallId\":\"w\",\"toolName\":\"web_search\",\"input\":\"{bad\",\"providerExecuted\":true}\n".to_owned(),
            Err(ToolCallIssue::MalformedProviderCall { id: "w".into() }),
        ),
        (format!("{}{}", call("a", "t", ""), result("a")), Err(ToolCallIssue::UnmatchedProviderResult { id: "a".into() })),
    ];
    for (stream, expected) in cases {
        assert_eq!(
            completion_from(&stream).check_tool_calls(),
            expected,
            "{stream}"
        );
    }
    assert_eq!(
        completion_from("data: {\"type\":\"tool-call\",\"toolCallId\":\"m\",\"toolName\":\"t\",\"input\":\"{bad\"}\n")
            .check_tool_calls(),
        Ok(()),
        "malformed local arguments are answered, not rejected"
    );
}

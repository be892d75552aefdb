// Generates a valid fx session log of N turns for benchmarks (no Node APIs: it also runs in the
// browser). Each turn runs one `terminal` command whose output is ~1 KiB, the shape of the
// recorded sessions in tests/fixtures/.

const GENERATION = '5d41402abc4b2a76b9719d911017c592';
const SESSION_ID = '1796000000000-1796000000000000000-0123456789abcdef';
const START_MS = 1796000000000;

function hex32(n) {
  return n.toString(16).padStart(32, '0');
}

function frame(seq, timestampMs, kind, payload) {
  return JSON.stringify({
    schema_version: 1,
    log_generation: GENERATION,
    seq,
    event_id: hex32(seq),
    timestamp_ms: timestampMs,
    kind,
    payload,
  });
}

/** Returns the events.jsonl bytes of a session with `turns` committed turns. */
export function generateSession(turns) {
  const encoder = new TextEncoder();
  const lines = [
    frame(1, START_MS, 'session_started', {
      id: SESSION_ID,
      created_at_ms: START_MS,
      origin_workspace_root: '/home/user/project',
      workspace_root: '/home/user/project',
      conversation_language: 'und-Latn',
      preferences: { model: 'moonshotai/kimi-k3', effort: 'auto', fast_mode: false, provider: 'gateway' },
      usage: {
        billing: 'complete', api_duration_complete: true, wall_duration_complete: true, code_complete: true,
        next_sequence: 1, settled_through_sequence: 0, api_duration_ms: 0, wall_duration_ms: 0, total_cost: 0,
        input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0,
        billable_web_search_calls: 0, lines_added: 0, lines_removed: 0, models: [], pending: [],
      },
    }),
  ];
  const body = Array.from({ length: 24 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog`).join('\n');
  for (let i = 1; i <= turns; i++) {
    const seq = i + 1;
    const at = START_MS + i * 1000;
    const output = `exit_code=0\n<stdout>\nturn ${i}\n${body}\n</stdout>\n`;
    const bytes = encoder.encode(output).length;
    lines.push(
      frame(seq, at, 'history_turn_committed', {
        conversation_language: 'und-Latn',
        total_input_tokens: 40 * i,
        total_output_tokens: 3 * i,
        turn: {
          kind: 'assistant',
          user: { text: `run step ${i} of the build`, images: [] },
          assistant: `Step ${i} finished. The output is above.`,
          execution: {
            schema_version: 3,
            tool_steps: [
              {
                assistant: 'Let me run it.',
                tool_calls: [
                  {
                    id: `call_${i}`,
                    name: 'terminal',
                    arguments_json: JSON.stringify({ action: 'exec', command: `make step-${i}` }),
                    provider_result: null,
                  },
                ],
                tool_results: [
                  {
                    tool_call_id: `call_${i}`, tool_name: 'terminal', status: 'success', output,
                    output_handle: null, preview: null, output_bytes: bytes, stored_output_bytes: bytes,
                    truncated: false, provider_native: false, created_at_ms: at - 500, permission_feedback: [],
                    committed_file_presentation: null, command_output_replay: null,
                    command_process_presentation: { kind: 'exit_code', value: 0 },
                  },
                ],
              },
            ],
            files: [],
          },
        },
      }),
    );
  }
  return encoder.encode(`${lines.join('\n')}\n`);
}

//! The AI Gateway language-model protocol, free of I/O: the caller supplies bytes and gets typed
//! values back.
//!
//! - [`endpoint`]: the chat URL policy (`FX_GATEWAY_CHAT_URL`) and the catalog URL.
//! - [`prompt`]: the wire message model, history pairing checks, prompt-cache markers.
//! - [`request`]: URL, headers and JSON body of a model request.
//! - [`sse`]: the incremental SSE decoder; [`events`]: the typed events it yields.
//! - [`completion`]: folding events into a step's completion and classifying it.
//! - [`catalog`]: the model catalog, default model, effort levels, Fast, context windows.
//! - [`error`]: non-200 responses, retryable failures and the retry schedule.
//!
//! One model step, as the agent loop drives it (the host does the fetching and sleeping):
//!
//! ```
//! use fx_wasm::gateway::{
//!     build_request, ChatEndpoint, Disposition, Message, RequestOptions, SseDecoder,
//!     StreamAccumulator,
//! };
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let endpoint = ChatEndpoint::from_env(None)?; // or Some(env.FX_GATEWAY_CHAT_URL)
//! let messages = [Message::system("You are fx."), Message::user_text("say hello")];
//! let options = RequestOptions {
//!     model_id: fx_wasm::gateway::DEFAULT_MODEL_ID,
//!     token: Some("api-key"),
//!     session_id: Some("session-1"),
//!     ..RequestOptions::default()
//! };
//! let request = build_request(&endpoint, &messages, &[], &options)?;
//! assert_eq!(request.url, "https://ai-gateway.vercel.sh/v3/ai/language-model");
//!
//! // POST request.headers + request.body; on a 200, feed the body as it arrives.
//! let mut decoder = SseDecoder::new();
//! let mut accumulator = StreamAccumulator::new();
//! let mut events = Vec::new();
//! for chunk in [&b"data: {\"type\":\"text-delta\",\"delta\":\"Hel"[..], b"lo\"}\n\n"] {
//!     decoder.feed(chunk, &mut events)?;
//!     // (show the new text to the user here, then fold it in)
//!     accumulator.push_all(&mut events);
//! }
//! decoder.end(&mut events)?;
//! accumulator.push_all(&mut events);
//! let completion = accumulator.into_completion();
//! assert_eq!(completion.text, "Hello");
//! // No `finish` arrived: the response was cut off and may be retried.
//! assert_eq!(completion.disposition(), Disposition::Interrupted);
//! # Ok(())
//! # }
//! ```

pub mod catalog;
pub mod completion;
pub mod endpoint;
pub mod error;
pub mod events;
mod flat_event;
pub mod prompt;
pub mod request;
pub mod sse;

pub use catalog::{Catalog, CatalogError, Effort, ModelInfo, DEFAULT_MODEL_ID};
pub use completion::{Billing, Completion, Disposition, StreamAccumulator, ToolCallIssue};
pub use endpoint::{ChatEndpoint, EndpointError, CANONICAL_CHAT_URL};
pub use error::{ProviderError, RetryCause, RetryDecision, RetryState};
pub use events::{Finish, FinishReason, SseEvent, StreamError, TokenCounts, ToolCall};
pub use prompt::{
    AssistantPart, ImagePart, Message, PromptError, ToolCallPart, ToolResult, UserPart,
};
pub use request::{build_request, RequestError, RequestOptions, ToolChoice, ToolDefinition};
pub use sse::{SseDecoder, SseError, StreamEnd};

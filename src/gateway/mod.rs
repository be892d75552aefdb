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
pub use completion::{Billing, Completion, Disposition, StreamAccumulator};
pub use endpoint::{ChatEndpoint, EndpointError, CANONICAL_CHAT_URL};
pub use error::{ProviderError, RetryCause, RetryDecision, RetryState};
pub use events::{Finish, FinishReason, SseEvent, StreamError, ToolCall, Usage};
pub use prompt::{
    AssistantPart, ImagePart, Message, PromptError, ToolCallPart, ToolResult, UserPart,
};
pub use request::{
    build_request, GatewayRequest, RequestError, RequestOptions, ToolChoice, ToolDefinition,
};
pub use sse::{SseDecoder, SseError, StreamEnd};

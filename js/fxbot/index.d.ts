// Types of fx-wasm/fxbot: `createFxbot()` and the object it resolves to (fxbot DESIGN §3.2,
// §3.3). Bots, chats, settings' `defaultProvider`, the library; providers of every kind of the
// kinds table (§4.3: key and server kinds added with `providers.add`, the Vercel sign-in; the
// ChatGPT and Grok sign-ins follow) and the provider switch (§10); memories (ranked by words;
// embedders follow); add-ons (skills, remote MCP servers with OAuth).
// Shape, Color and the kinds table are reconstructed (the seed lost their tables).

import type { FxbotErrorCode, StreamLine, Turn, Upload } from './client.js';
import type { FxbotStore } from './stores.js';
import type { WasmSource } from '../index.js';

export type { FxbotErrorCode, Part, StopReason, StreamLine, Turn, TurnError, Upload, Usage } from './client.js';
export type { FxbotStore, IndexedDbFxbotStore, IndexedDbFxbotStoreOptions, MemoryFxbotStore } from './stores.js';
export { indexedDbFxbotStore, memoryFxbotStore } from './stores.js';

export type Shape = 'circle' | 'square' | 'rounded' | 'triangle' | 'diamond' | 'hexagon' | 'star';
export type Color = 'gray' | 'red' | 'orange' | 'amber' | 'green' | 'teal' | 'blue' | 'indigo' | 'purple' | 'pink';
/** A key kind: a fixed `baseUrl` and an API key. */
export type KeyKind = 'gateway' | 'openai' | 'anthropic' | 'google' | 'xai' | 'openrouter' | 'groq' | 'mistral' | 'deepseek';
/** A model server's kind: `baseUrl` optional (required for `custom`), key optional, `contextWindow` allowed. */
export type ServerKind = 'ollama' | 'lmstudio' | 'llamacpp' | 'vllm' | 'custom';
/** A kind added by `signIns` only. */
export type SignInKind = 'vercel' | 'chatgpt' | 'grok';
/** Every provider kind (the kinds table, `providers.kinds`). */
export type Kind = KeyKind | ServerKind | SignInKind;

export interface Fields {
  name: string;
  instructions: string;
  model: string;
  provider: string;
  shape: Shape;
  color: Color;
}

export interface Profile extends Fields {
  id: string;
  /** The current chat, from the first message. */
  sessionId: string | null;
  /** The start of the latest reply. */
  preview: string | null;
  /** The summary a provider switch carried over. */
  handoff: string | null;
  /** A turn runs in this process. */
  busy: boolean;
  pinned: boolean;
}

export interface Message {
  text: string;
  messageId: string;
  files?: Upload[];
}

/** What `chat.send` resolves with once the turn started (or with the earlier turn of the same messageId). */
export interface Sent {
  sessionId: string;
  turn: number;
  /** Stream from here to get exactly this turn onward. */
  cursor: number;
  duplicate: boolean;
}

export interface Provider {
  id: string;
  kind: Kind;
  name: string;
  baseUrl: string | null;
  model: string;
  contextWindow: number | null;
  teamId: string | null;
  hasKey: boolean;
  signedIn: boolean;
  error: string | null;
}

export interface NewProvider {
  kind: KeyKind | ServerKind;
  /** Required for a key kind, optional for a server kind, up to 4,096 characters. */
  apiKey?: string;
  /** Server kinds only: https, or http on localhost, 127.0.0.1 or [::1]; no credentials, query or fragment. */
  baseUrl?: string;
  /** Defaults to the kind's label. */
  name?: string;
  /** The default model of the provider's bots. */
  model?: string;
  /** Server kinds only: overrides the window the server reports. */
  contextWindow?: number | null;
}

/** A `providers.update` patch: a new key, address or team drops the kept model list. */
export interface ProviderPatch {
  name?: string;
  /** Not for a kind that signs in. */
  apiKey?: string;
  /** Server kinds only. */
  baseUrl?: string;
  model?: string;
  /** Server kinds only. */
  contextWindow?: number | null;
  /** A Vercel account's team (one of its teams). */
  teamId?: string;
}

/** One model of a provider's list. */
export interface ProviderModel {
  id: string;
  /** The provider's `contextWindow`, else what its server or list reports. */
  contextWindow: number | null;
}

export interface KindInfo {
  kind: Kind;
  label: string;
  class: 'key' | 'server' | 'signIn';
  signIn: boolean;
  needsKey: boolean;
  /** The wire protocol of its model calls. */
  protocol: 'gateway' | 'chat-completions' | 'responses' | 'anthropic-messages' | 'gemini';
  /** The fixed base URL, or a server kind's default (null for `custom`). */
  baseUrl: string | null;
  baseUrlFixed: boolean;
  /** Paths under the base URL. */
  chatPath: string;
  modelsPath: string;
  keyCheckPath: string;
  /** The header that carries the key. */
  authHeader: string;
  /** Where a model's context window comes from. */
  contextWindow: string;
}

/** A device sign-in (part 1: a Vercel account). */
export interface SignIn {
  id: string;
  kind: 'vercel';
  status: 'pending' | 'complete' | 'expired' | 'denied' | 'failed' | 'cancelled';
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string | null;
  expiresAt: string;
  /** The provider it added (complete only): one team is taken, several leave `teamId` null. */
  provider: Provider | null;
  error: string | null;
}

export interface Settings {
  defaultProvider: string;
  embedder: 'local' | 'remote' | 'off';
  embeddingProvider: string;
  embeddingModel: string;
  /** How many messages get vectors: a whole number from 0 to 100,000 (default 1,000). */
  messageVectors: number;
}

/** `settings.embedding()`: the vectors behind memory search. */
export interface EmbeddingStatus {
  /** `local:<model>` or `remote:<providerId>:<model>` in use; null when vectors are off or the embedder did not answer within 5 s. */
  model: string | null;
  /** The fill-in's last error (cleared by a pass that completes). */
  error: string | null;
  /** Messages considered (the newest `messageVectors` per bot) and how many have a vector. */
  messages: number;
  withVectors: number;
  memories: number;
  memoriesWithVectors: number;
  /** The local device in use (`cpu` for a host embedder), null without one. */
  local: 'cpu' | 'gpu' | 'off' | null;
  switching: { to: 'cpu' | 'gpu' | 'off'; error?: string } | null;
  canSwitch: boolean;
}

/** A host-supplied local embedder: `embed` resolves one vector (numbers or a Float32Array) per text. */
export interface LocalEmbedder {
  model: string;
  embed(texts: string[]): Promise<ArrayLike<number>[]>;
}

export interface LibraryItem {
  id: string;
  name: string;
  type: string;
  size: number;
  sha256: string;
  url: string;
  createdAt: string;
  tags: string[];
  botId: string | null;
  sessionId: string | null;
  messageId: string | null;
}

export interface EarlierChat {
  sessionId: string;
  startedAt: string;
  endedAt: string;
  provider: string;
  model: string;
  handoff: string | null;
}

/** Every failure of a call: `status` is HTTP-like, `code` stable. */
export interface Memory {
  /** 12 hex characters; `mem:<id>` is accepted wherever an id is. */
  id: string;
  /** 1 to 4,000 characters. */
  text: string;
  savedBy: 'bot' | 'owner';
  /** The `msg:<id>` that chat_history knows, of the turn that saved it (null for the owner's). */
  messageId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A search hit: the best scores 1, the others relative to it. */
export interface MemoryHit extends Memory {
  score: number;
}

/** `server:<12 hex>` for an MCP server, `skill:<name>` for a skill (a bare id or name is 400). */
export type AddonRef = `server:${string}` | `skill:${string}`;

export interface McpTool {
  name: string;
  title: string | null;
  description: string;
  /** `annotations.readOnlyHint` is true. */
  readOnly: boolean;
}

/** A remote MCP server (its header values are secrets: only their names are shown). */
export interface McpServer {
  ref: AddonRef;
  kind: 'server';
  id: string;
  name: string;
  url: string;
  auth: 'none' | 'headers' | 'oauth';
  /** The names of the headers it was added with (only these can be updated). */
  headers: string[];
  tools: McpTool[];
  /** The tools a bot may call; starts as the read-only ones. Only these are offered to the model. */
  allowed: string[];
  signedIn: boolean;
  error: string | null;
  /** The bots it is assigned to. */
  bots: string[];
}

/** A skill, from a `SKILL.md`. */
export interface Skill {
  ref: AddonRef;
  kind: 'skill';
  /** `^[a-z0-9]+(-[a-z0-9]+)*$`, at most 64 characters. */
  name: string;
  description: string;
  instructions: string;
  /** The URL it was fetched from (`refresh` fetches it again), or null. */
  sourceUrl: string | null;
  bots: string[];
}

export type Addon = McpServer | Skill;

export interface NewServer {
  /** https, or http on localhost, 127.0.0.1 or [::1]; no credentials, query or fragment. */
  url: string;
  /** Defaults to the URL's host; the model's tool names are `mcp_<name>_<tool>`. */
  name?: string;
  /** Header values: one line, at most 8 KiB each. */
  headers?: Record<string, string>;
  /** `'oauth'`: stored unlisted until `oauth()` signs in (a server that answers 401 is stored so too). */
  auth?: 'none' | 'oauth';
}

export type NewSkill = { markdown: string } | { url: string };

export interface AddonPatch {
  /** A server's name. */
  name?: string;
  /** A server's allowed tools (names it lists). */
  allowed?: string[];
  /** New values for headers the server was added with. */
  headers?: Record<string, string>;
  /** The bots it is assigned to (replaces the list). */
  bots?: string[];
}

export interface FxbotError extends Error {
  name: 'FxbotError';
  status: 400 | 404 | 409 | 500 | 502;
  code: FxbotErrorCode;
}

export interface StreamOptions {
  /** Replay an earlier chat (never follows). */
  sessionId?: string;
  signal?: AbortSignal;
  /** Wait for new turns after the replay (default true); false ends once no turn runs. */
  follow?: boolean;
}

export interface Fxbot {
  bots: {
    list(): Promise<Profile[]>;
    get(botId: string): Promise<Profile>;
    create(fields?: Partial<Fields>): Promise<Profile>;
    update(botId: string, patch: Partial<Fields> & { pinned?: boolean }): Promise<Profile>;
    remove(botId: string): Promise<void>;
  };
  chat: {
    send(botId: string, message: Message): Promise<Sent>;
    stream(botId: string, cursor: number, options?: StreamOptions): AsyncIterable<StreamLine>;
    turns(botId: string, options?: { sessionId?: string }): Promise<Turn[]>;
    stop(botId: string): Promise<boolean>;
    earlier(botId: string): Promise<EarlierChat[]>;
  };
  providers: {
    readonly kinds: readonly KindInfo[];
    list(): Promise<Provider[]>;
    get(providerId: string): Promise<Provider>;
    /** Checks the key by listing the models: 401/403 fail with 400, a 404 passes, 5xx fail with 502. */
    add(provider: NewProvider): Promise<Provider>;
    update(providerId: string, patch: ProviderPatch): Promise<Provider>;
    /** The kept model list, fetched when there is none or `refresh` is true. */
    models(providerId: string, options?: { refresh?: boolean }): Promise<ProviderModel[]>;
    remove(providerId: string): Promise<void>;
  };
  signIns: {
    /** Asks for a device code and opens the verification page (`openUrl`). */
    start(kind: 'vercel'): Promise<SignIn>;
    /** Resolves once the sign-in is no longer pending; `signal` cancels it. */
    wait(signInId: string, options?: { signal?: AbortSignal }): Promise<SignIn>;
    get(signInId: string): Promise<SignIn>;
    cancel(signInId: string): Promise<void>;
  };
  settings: {
    get(): Promise<Settings>;
    /**
     * `embedder: 'local'` needs `createFxbot({ embedder })`, `'remote'` an `embeddingProvider`
     * with an embeddings endpoint and an `embeddingModel`; either must embed a test string (400
     * and nothing changed otherwise); a change of the embedding fields or `messageVectors` starts the
     * fill-in again, in the background (`onEvent` `embedding_progress` from 0).
     */
    update(patch: Partial<Settings>): Promise<Settings>;
    embedding(): Promise<EmbeddingStatus>;
  };
  library: {
    list(filter?: { botId?: string; sessionId?: string; tag?: string }): Promise<LibraryItem[]>;
    get(itemId: string): Promise<LibraryItem>;
    add(upload: Upload & { data: string }, options?: { tags?: string[] }): Promise<LibraryItem>;
    read(itemId: string): Promise<{ name: string; type: string; bytes: Uint8Array }>;
    remove(itemId: string): Promise<void>;
  };
  /**
   * A bot's memories. Its instructions carry the newest within 2 % of the model's context
   * window; its tools memory_save, memory_search, memory_update and memory_forget use them too.
   */
  memories: {
    /** Newest first (by updatedAt). */
    list(botId: string): Promise<Memory[]>;
    /** `savedBy: "owner"`; 400 for an empty text or one over 4,000 characters. */
    add(botId: string, text: string): Promise<Memory>;
    update(botId: string, memoryId: string, text: string): Promise<Memory>;
    /** 404 for an unknown memory. */
    remove(botId: string, memoryId: string): Promise<void>;
    /** Ranked by words (BM25, a phrase and recency boost); `limit` 1 to 20, default 8. */
    search(botId: string, query: string, options?: { limit?: number }): Promise<MemoryHit[]>;
  };
  addons: {
    /** The servers (oldest first), then the skills (by name). */
    list(): Promise<Addon[]>;
    get(ref: AddonRef): Promise<Addon>;
    /** Connects, lists the tools, allows the read-only ones; 502 when the server cannot be reached. */
    addServer(server: NewServer): Promise<McpServer>;
    /** 400 for a `SKILL.md` outside the rules or a name in use; 502 when a URL cannot be fetched. */
    addSkill(skill: NewSkill): Promise<Skill>;
    update(ref: AddonRef, patch: AddonPatch): Promise<Addon>;
    /** The next turn goes without it. */
    remove(ref: AddonRef): Promise<void>;
    /** Re-lists a server's tools (new ones are not allowed by themselves), re-fetches a skill's URL. */
    refresh(ref: AddonRef): Promise<Addon>;
    /**
     * Starts a sign-in to an OAuth server: resolves the authorization URL for the host to open
     * (a popup or the same tab). `origin` is the page's origin (in a browser it must be
     * `location.origin`); the server sends the browser to `origin + oauthRedirectPath`.
     */
    oauth(ref: AddonRef, options: { origin: string }): Promise<{ url: string }>;
    /** Completes it from the callback page (`location.href`), in any tab on the same stores. 400 for an unknown `state`. */
    completeOAuth(callbackUrl: string): Promise<McpServer>;
  };
  /**
   * Stops this process's turns (of one bot, or all), drops their journals and kept chats, ends
   * their streams. Nothing stored changes. A `botId` of another shape is 400, an unknown bot 404.
   */
  release(botId?: string): Promise<void>;
  /** Releases everything; later calls fail with 409 FXBOT_CLOSED. Idempotent. */
  close(): Promise<void>;
}

export interface FxbotOptions {
  /** Everything but the chats (default: IndexedDB `fxbot` in a browser, memory in Node). */
  store?: FxbotStore;
  /** The chats, as fx sessions (default: IndexedDB `fxbot-sessions` in a browser, memory in Node). */
  sessionStore?: {
    load(id: string): unknown;
    commit(id: string, bytes: Uint8Array, expectedRevision: string | undefined): unknown;
    list(): unknown;
    remove(id: string): unknown;
  };
  /** Opens a sign-in's verification page; true when it did. */
  openUrl?: (url: string) => boolean | Promise<boolean>;
  /** Every network request goes through it (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** A library item's `url` (default `/api/library/<id>/file`). */
  libraryUrl?: (id: string) => string;
  /**
   * The local embedder for `embedder: 'local'` (memories and the newest `messageVectors`
   * messages get vectors; searches combine cosine with the words). Each `embed` call is given
   * 60 s (or `adapterTimeoutMs`, if longer).
   */
  embedder?: LocalEmbedder;
  /** Where an MCP server's authorization server sends the browser back (default `/oauth/callback`). */
  oauthRedirectPath?: string;
  /** A client-id metadata document this host serves, used when an authorization server accepts one. */
  oauthClientMetadataUrl?: string;
  /** Test-only loopback overrides (`FX_GATEWAY_CHAT_URL`, `FX_E2E_OAUTH_ISSUER_URL`). */
  env?: Record<string, string>;
  /** How long a store call may take (ms). */
  adapterTimeoutMs?: number;
  /**
   * How long a model response may send nothing, in milliseconds (default 300 000; a whole
   * number from 1 to 2147483647). A silent response is retried like a cut stream, then the turn
   * fails (`turn_end.error`: `FXBOT_PROVIDER_FAILED`, the message saying the AI Gateway sent
   * nothing for that long).
   */
  modelIdleTimeoutMs?: number;
  /**
   * This process's name in the turn claims of the store (1 to 64 printable ASCII characters;
   * random by default). A process that comes back under the same name (a server restarted with
   * a fixed name) settles the turns it left running when it sends the bot's next message: a turn
   * cut short after a tool step keeps that step and is marked failed. Claims of other names are
   * left alone (their process may still be running them).
   */
  owner?: string;
  /**
   * The agent's events, as `createFxAgent` emits them: `request.retry` (a model request is
   * retried), `session.forked` (a chat's session continued as a fork; the bot follows it),
   * `turn.usage` (a model step's tokens), `session.unsaved`.
   */
  onEvent?: (event: { type: string; [key: string]: unknown }) => void;
  /** Where fx-bot.wasm comes from (as `createFxAgent`'s `wasm`). */
  wasm?: WasmSource;
}

export function createFxbot(options?: FxbotOptions): Promise<Fxbot>;

/** At most this many bots are pinned (3). */
export const MAX_PINNED: 3;
/** The stable codes of FxbotError. */
export const FxbotErrorCodes: readonly FxbotErrorCode[];
/** True for a bot id: 12 lowercase hex characters. */
export function isBotId(value: unknown): value is string;

// Types of fx-wasm/fxbot/server: the Fxbot object behind HTTP (issue 23).

import type { Fxbot } from './index.js';


export type { FxbotHttpErrorCode } from './client.js';

/** Every failure's body, with the same `status` as the HTTP status. */
export interface FxbotServerErrorBody {
  error: { status: number; code: string; message: string };
}

export interface FxbotServerOptions {
  /**
   * Required: true lets a request through; anything else (or a throw) is 401 before the request
   * is routed or its body read. Without it `createFxbotServer` throws.
   */
  authorize: (request: Request) => boolean | Promise<boolean>;
  /** The largest request body in bytes (default DEFAULT_MAX_BODY_BYTES), counted while it arrives: 413 past it. */
  maxBodyBytes?: number;
  /** A silent event stream sends the comment `: hb` this often (ms, default 15 000). */
  heartbeatMs?: number;
  /** An unexpected failure (the client gets a bare 500 FXBOT_INTERNAL), for the host's log. */
  onError?: (error: unknown) => void;
}

/** A fetch-style handler. */
export type FxbotHandler = (request: Request) => Promise<Response>;

/**
 * The routes, under /api/ (JSON in and out; 201 for a create, 204 for nothing):
 * GET/POST /bots · GET/PATCH/DELETE /bots/:id · POST /bots/:id/send · GET /bots/:id/stream
 * (?cursor, ?sessionId, ?follow=0; text/event-stream, `id:` = cursor, `Last-Event-ID` wins over
 * ?cursor, `: hb` heartbeats, `event: end` at the end, `event: error` for a failure) ·
 * GET /bots/:id/turns (?sessionId) · POST /bots/:id/stop · GET /bots/:id/earlier ·
 * POST /bots/:id/release · POST /release · GET /providers/kinds · GET/POST /providers ·
 * GET/DELETE /providers/:id · POST /sign-ins · GET/DELETE /sign-ins/:id · POST /sign-ins/:id/wait ·
 * GET/PATCH /settings · GET (?botId, ?sessionId, ?tag)/POST /library · GET/DELETE /library/:id ·
 * GET /library/:id/file (the bytes: the item's type, Content-Disposition, nosniff, and
 * `Content-Security-Policy: sandbox` for anything but PNG, JPEG, GIF and WebP).
 */
export function createFxbotServer(fxbot: Fxbot, options: FxbotServerOptions): FxbotHandler;

/** The upload limits of a message (16 MiB of files as base64, 1 MiB of text) with JSON room. */
export const DEFAULT_MAX_BODY_BYTES: number;
export const DEFAULT_HEARTBEAT_MS: 15000;

export interface Listening {
  /** `http://host:port` */
  url: string;
  port: number;
  /** Node's http.Server. */
  server: unknown;
  /** Stops accepting and ends open connections. */
  close(): Promise<void>;
}

/** Node only (the `node` condition): serves `handler` from node:http (default 127.0.0.1, any free port). */
export function listen(handler: FxbotHandler, options?: { port?: number; host?: string }): Promise<Listening>;

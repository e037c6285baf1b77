"""The names the remote transport's two sides share: its headers and media types. Neither side
decodes a whole message: they peek at the members that route it (`acp_runtime.jsonrpc.peek`) and
hand the bytes on, which the connection decodes as stdio does."""

CONNECTION_ID_HEADER = "Acp-Connection-Id"
SESSION_ID_HEADER = "Acp-Session-Id"
JSON_TYPE = "application/json"
EVENT_STREAM_TYPE = "text/event-stream"

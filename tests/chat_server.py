"""A real local HTTP server that speaks the OpenAI chat-completions protocol, answering from a script.

Binds 127.0.0.1 on a free port; the test that starts it stops it."""

from __future__ import annotations

import json
from collections import deque

from tests.local_http import JSONHandler, LocalHTTPServer


class ChatServer(LocalHTTPServer):
    def __init__(self, replies: list[str], refuse_json_schema: bool = False, fail_first_with: int | None = None,
                 route=None):
        """`route(request_body)` may answer a request itself (return a string) or leave it to the queue (None).
        A reply given as (content, finish_reason) sets the finish reason ("length": cut off at the token limit)."""
        self.route = route
        self.replies = deque(replies)
        self.requests: list[dict] = []
        self.refuse_json_schema = refuse_json_schema
        self.fail_first_with = fail_first_with
        server = self

        class Handler(JSONHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                if server.fail_first_with:
                    code, server.fail_first_with = server.fail_first_with, None
                    return self._send(code, {"error": {"message": "try again", "type": "server_error"}})
                fmt = body.get("response_format", {}).get("type")
                if server.refuse_json_schema and fmt == "json_schema":
                    return self._send(400, {"error": {"message": "response_format json_schema unsupported", "type": "invalid_request_error"}})
                routed = server.route(body) if server.route else None
                content = routed if routed is not None else (server.replies.popleft() if server.replies else "{}")
                content, finish = content if isinstance(content, tuple) else (content, "stop")
                self._send(200, {
                    "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
                })

        self._serve(Handler)

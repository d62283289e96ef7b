"""A real local HTTP server that speaks the OpenAI chat-completions protocol, answering from a script.

Binds 127.0.0.1 on a free port; the test that starts it stops it."""

from __future__ import annotations

import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatServer:
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

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

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

            def _send(self, code, payload):
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

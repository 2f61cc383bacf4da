"""Sockets that speak HTTP through sandtab's capability gate.

The sandbox has no network sockets. A program that connects one (`http.client`,
`urllib.request`, `urllib3` and `requests` on top of them) gets a socket that keeps
what is written to it; when the program reads, the HTTP request it wrote goes to
`/dev/sandtab/http`, which sends it through the gate (the origins the page granted,
the same checks and audit entries as `curl`), and the answer is read back as an
HTTP/1.1 response. Over `ssl` (sandtab's own module) the request goes out as HTTPS:
the browser makes the TLS connection and checks the certificate.

A refused request raises `GateRefused` (a `PermissionError`) whose message starts
with the gate's code, for example `CAP_NET_DENIED: ...`.

Importing `socket` costs about half a second in the sandbox, so `sitecustomize`
loads this module only when the program imports `socket`.
"""

import sys

DEVICE = "/dev/sandtab/http"

# Headers the browser sets itself (or refuses), and framing this module redoes.
_DROP_REQUEST = {
    "host", "connection", "content-length", "transfer-encoding", "keep-alive",
    "accept-encoding", "te", "trailer", "upgrade", "expect", "proxy-connection",
}
_DROP_RESPONSE = {"content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding"}


class GateRefused(PermissionError):
    """The gate refused the request, or it failed on the way; `code` is the gate's
    code (`CAP_NET_DENIED`, `CAP_NET_FAILED`, ...)."""

    def __init__(self, code, message):
        import errno

        super().__init__(errno.EACCES, f"{code}: {message}")
        self.code = code


def exchange(head, body=None):
    """Sends one request (`head` as the device takes it) and returns the answer's head
    and body. Used by the sockets below and by anything that wants no sockets."""
    import json
    import os

    head = dict(head)
    head["body"] = body is not None
    data = json.dumps(head).encode() + b"\n" + (body or b"")
    fd = os.open(DEVICE, os.O_RDWR)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(fd)
    answer = b"".join(chunks)
    line, _, rest = answer.partition(b"\n")
    return json.loads(line), rest


def _parse_request(data):
    """(method, target, headers, body) of the HTTP/1.1 request in `data`."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        raise OSError(22, "the program wrote no complete HTTP request before reading")
    lines = data[:end].decode("latin-1").split("\r\n")
    method, target, _version = lines[0].split(" ", 2)
    headers = []
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.append((name.strip(), value.strip()))
    rest = data[end + 4:]
    lengths = [v for n, v in headers if n.lower() == "content-length"]
    chunked = any(n.lower() == "transfer-encoding" and "chunked" in v.lower() for n, v in headers)
    if chunked:
        body = bytearray()
        while True:
            size_end = rest.index(b"\r\n")
            size = int(rest[:size_end].split(b";")[0], 16)
            rest = rest[size_end + 2:]
            if size == 0:
                break
            body += rest[:size]
            rest = rest[size + 2:]
        body = bytes(body)
    elif lengths:
        body = rest[: int(lengths[0])]
    else:
        body = None
    return method, target, headers, body


def _is_whole(data):
    """Whether `data` holds a whole HTTP/1.1 request (head and body)."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return False
    head = bytes(data[:end]).lower()
    body = len(data) - end - 4
    if b"\r\ntransfer-encoding:" in head and b"chunked" in head:
        return data.endswith(b"0\r\n\r\n")
    at = head.find(b"\r\ncontent-length:")
    if at < 0:
        return True
    value = head[at + 17:].split(b"\r\n", 1)[0].strip()
    return not value.isdigit() or body >= int(value)


def _response_bytes(method, head, body):
    status = head["status"]
    reason = head.get("status_text") or _reason(status)
    lines = [f"HTTP/1.1 {status} {reason}"]
    length = None
    for name, value in head.get("headers", []):
        if name.lower() == "content-length":
            length = value
        if name.lower() not in _DROP_RESPONSE:
            lines.append(f"{name}: {value}")
    if method == "HEAD":
        if length is not None:
            lines.append(f"Content-Length: {length}")
        body = b""
    elif status not in (204, 304) and not 100 <= status < 200:
        lines.append(f"Content-Length: {len(body)}")
    lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def _reason(status):
    try:
        from http import HTTPStatus

        return HTTPStatus(status).phrase
    except ValueError:
        return ""


class GateSocket:
    """A stream socket whose HTTP requests go through the gate (see the module)."""

    def __init__(self, family=2, type=1, proto=0, fileno=None):
        self.family, self.type, self.proto = family, type, proto
        self._address = None
        self._tls = False
        self._server_hostname = None
        self._sent = bytearray()
        self._answer = None
        self._timeout = None
        self._closed = False

    # -- connecting: nothing happens until the request is read
    def connect(self, address):
        host, port = address[0], address[1]
        self._address = (str(host).strip("[]"), int(port))

    def connect_ex(self, address):
        self.connect(address)
        return 0

    def settimeout(self, value):
        self._timeout = value

    def gettimeout(self):
        return self._timeout

    def setblocking(self, flag):
        self._timeout = None if flag else 0.0

    def setsockopt(self, *args):
        pass

    def getsockopt(self, *args):
        return 0

    def bind(self, address):
        raise OSError(58, "sandtab: sockets cannot listen or bind; HTTP(S) goes through the gate")

    def listen(self, *args):
        self.bind(None)

    def fileno(self):
        return -1

    def getpeername(self):
        return self._address

    def getsockname(self):
        return ("0.0.0.0", 0)

    # -- the exchange
    def sendall(self, data, flags=0):
        if self._closed:
            raise OSError(9, "Bad file descriptor")
        if self._answer is not None and self._answer_left() == 0:
            # A second request on the same socket.
            self._answer = None
        self._sent += data
        # Sent as soon as it is whole, so a refusal is raised where a program expects
        # a connection to fail (in `request()`, not in `getresponse()`).
        if self._answer is None and _is_whole(self._sent):
            self._ask()

    def send(self, data, flags=0):
        self.sendall(data)
        return len(data)

    def _answer_left(self):
        answer, pos = self._answer
        return len(answer) - pos

    def _ask(self):
        if self._address is None:
            raise OSError(107, "Transport endpoint is not connected")
        method, target, headers, body = _parse_request(bytes(self._sent))
        self._sent.clear()
        host, port = self._address
        scheme = "https" if self._tls else "http"
        default = 443 if self._tls else 80
        authority = self._server_hostname or host
        if ":" in authority:
            authority = f"[{authority}]"
        if port != default:
            authority = f"{authority}:{port}"
        url = target if "://" in target else f"{scheme}://{authority}{target}"
        sent = [(n, v) for n, v in headers if n.lower() not in _DROP_REQUEST]
        if body is None and method in ("POST", "PUT", "PATCH"):
            body = b""
        head, data = exchange(
            {"method": method, "url": url, "headers": sent, "follow_redirects": False},
            body,
        )
        error = head.get("error")
        if error:
            raise GateRefused(error.get("code", "CAP_NET_FAILED"), error.get("message", ""))
        self._answer = (_response_bytes(method, head, data), 0)

    def recv_into(self, buffer, nbytes=0, flags=0):
        # Closing does not stop a reader made by `makefile` (as with real sockets,
        # which `http.client` closes before the body is read).
        if self._answer is None:
            if not self._sent:
                return 0
            self._ask()
        answer, pos = self._answer
        want = nbytes or len(buffer)
        data = answer[pos:pos + want]
        buffer[: len(data)] = data
        self._answer = (answer, pos + len(data))
        return len(data)

    def recv(self, bufsize, flags=0):
        buffer = bytearray(bufsize)
        got = self.recv_into(buffer)
        return bytes(buffer[:got])

    def makefile(self, mode="r", buffering=None, *, encoding=None, errors=None, newline=None):
        import io

        raw = _SocketIO(self)
        if "b" in mode:
            return io.BufferedReader(raw) if "r" in mode else io.BufferedWriter(raw)
        reader = io.BufferedReader(raw)
        return io.TextIOWrapper(reader, encoding, errors, newline)

    def shutdown(self, how):
        pass

    def close(self):
        self._closed = True

    def detach(self):
        self._closed = True
        return -1

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()

    def __repr__(self):
        return f"<sandtab GateSocket {self._address} tls={self._tls}>"


def _socket_io():
    import io

    class SocketIO(io.RawIOBase):
        def __init__(self, sock):
            self._sock = sock

        def readable(self):
            return True

        def writable(self):
            return True

        def readinto(self, buffer):
            return self._sock.recv_into(buffer)

        def write(self, data):
            self._sock.sendall(data)
            return len(data)

    return SocketIO


def _SocketIO(sock):
    global _SocketIO
    cls = _socket_io()
    _SocketIO = cls
    return cls(sock)


def _patch_socket(socket):
    stream = socket.SOCK_STREAM

    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
        if isinstance(port, str):
            port = int(port) if port.isdigit() else {"http": 80, "https": 443}.get(port, 0)
        if host is None:
            host = "localhost"
        if isinstance(host, bytes):
            host = host.decode()
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        return [(fam, stream, 6, "", (host, port))]

    def gethostbyname(host):
        return host

    def create_connection(address, timeout=None, source_address=None, *, all_errors=False):
        sock = GateSocket()
        if timeout is not None and timeout is not getattr(socket, "_GLOBAL_DEFAULT_TIMEOUT", None):
            sock.settimeout(timeout)
        sock.connect(address)
        return sock

    socket.getaddrinfo = getaddrinfo
    socket.gethostbyname = gethostbyname
    socket.create_connection = create_connection
    socket.socket = GateSocket
    socket.SocketType = GateSocket
    socket.GateSocket = GateSocket
    if not hasattr(socket, "SO_KEEPALIVE"):
        socket.SO_KEEPALIVE = 9


def socket_spec(name, path, target):
    """The spec of the real `socket`, whose loader patches it once loaded."""
    for finder in sys.meta_path:
        if not hasattr(finder, "find_spec"):
            continue
        spec = finder.find_spec(name, path, target)
        if spec is not None:
            spec.loader = _Patching(spec.loader, _patch_socket)
            return spec
    return None


class _Patching:
    def __init__(self, loader, patch):
        self._loader = loader
        self._patch = patch

    def create_module(self, spec):
        return self._loader.create_module(spec) if hasattr(self._loader, "create_module") else None

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._patch(module)

    def __getattr__(self, name):
        return getattr(self._loader, name)

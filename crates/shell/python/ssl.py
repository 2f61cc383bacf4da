"""sandtab's `ssl`. This CPython has no TLS of its own (it was built without OpenSSL),
and the sandbox has no sockets: an HTTPS request goes through the capability gate,
and the browser makes the TLS connection and checks the server's certificate. This
module gives programs the names they expect, so that `http.client.HTTPSConnection`,
`urllib.request` and `urllib3` (`requests`) send HTTPS requests that way.

A socket it wraps must be one of `_sandtab_net`'s; client certificates and servers
are not possible and raise `SSLError`. The certificate checks cannot be turned off:
`CERT_NONE` is accepted, but the browser still checks.
"""

import enum as _enum
import os as _os

import _sandtab_net

OPENSSL_VERSION = "OpenSSL 3.0 (none: TLS is the browser's, through sandtab's gate)"
OPENSSL_VERSION_INFO = (3, 0, 0, 0, 0)
OPENSSL_VERSION_NUMBER = 0x30000000
_OPENSSL_API_VERSION = OPENSSL_VERSION_INFO

HAS_SNI = True
HAS_ALPN = True
HAS_NPN = False
HAS_ECDH = True
HAS_NEVER_CHECK_COMMON_NAME = True
HAS_TLSv1_3 = True
HAS_SSLv2 = HAS_SSLv3 = HAS_TLSv1 = HAS_TLSv1_1 = False
HAS_TLSv1_2 = True
CHANNEL_BINDING_TYPES = []

OP_ALL = 0x80000054
OP_NO_SSLv2 = 0
OP_NO_SSLv3 = 0x2000000
OP_NO_TLSv1 = 0x4000000
OP_NO_TLSv1_1 = 0x10000000
OP_NO_TLSv1_2 = 0x8000000
OP_NO_TLSv1_3 = 0x20000000
OP_NO_COMPRESSION = 0x20000
OP_NO_TICKET = 0x4000
OP_NO_RENEGOTIATION = 0x40000000
OP_CIPHER_SERVER_PREFERENCE = 0x400000
OP_SINGLE_DH_USE = OP_SINGLE_ECDH_USE = 0
OP_ENABLE_MIDDLEBOX_COMPAT = 0x100000
OP_IGNORE_UNEXPECTED_EOF = 0x80
OP_LEGACY_SERVER_CONNECT = 0x4

VERIFY_DEFAULT = 0
VERIFY_CRL_CHECK_LEAF = 0x4
VERIFY_CRL_CHECK_CHAIN = 0xC
VERIFY_X509_STRICT = 0x20
VERIFY_X509_TRUSTED_FIRST = 0x8000
VERIFY_X509_PARTIAL_CHAIN = 0x80000
VERIFY_ALLOW_PROXY_CERTS = 0x40


class _IntEnum(_enum.IntEnum):
    pass


class VerifyMode(_IntEnum):
    CERT_NONE = 0
    CERT_OPTIONAL = 1
    CERT_REQUIRED = 2


CERT_NONE, CERT_OPTIONAL, CERT_REQUIRED = VerifyMode


class _SSLMethod(_IntEnum):
    PROTOCOL_TLS = 2
    PROTOCOL_TLS_CLIENT = 16
    PROTOCOL_TLS_SERVER = 17


PROTOCOL_TLS, PROTOCOL_TLS_CLIENT, PROTOCOL_TLS_SERVER = _SSLMethod
PROTOCOL_SSLv23 = PROTOCOL_TLS


class TLSVersion(_IntEnum):
    MINIMUM_SUPPORTED = -2
    SSLv3 = 768
    TLSv1 = 769
    TLSv1_1 = 770
    TLSv1_2 = 771
    TLSv1_3 = 772
    MAXIMUM_SUPPORTED = -1


class Purpose(str, _enum.Enum):
    SERVER_AUTH = "1.3.6.1.5.5.7.3.1"
    CLIENT_AUTH = "1.3.6.1.5.5.7.3.2"


class SSLError(OSError):
    library = "SSL"
    reason = None


class SSLZeroReturnError(SSLError):
    pass


class SSLWantReadError(SSLError):
    pass


class SSLWantWriteError(SSLError):
    pass


class SSLSyscallError(SSLError):
    pass


class SSLEOFError(SSLError):
    pass


class SSLCertVerificationError(SSLError, ValueError):
    verify_code = 0
    verify_message = ""


CertificateError = SSLCertVerificationError

_NOT_HERE = "sandtab: TLS is made by the browser; {} is not possible in the sandbox"


class SSLSocket(_sandtab_net.GateSocket):
    """A gate socket whose requests go out as HTTPS."""

    context = None
    server_side = False

    @property
    def server_hostname(self):
        return self._server_hostname

    def do_handshake(self, block=False):
        pass

    def version(self):
        return "TLSv1.3"

    def cipher(self):
        return ("TLS_AES_128_GCM_SHA256", "TLSv1.3", 128)

    def shared_ciphers(self):
        return [self.cipher()]

    def compression(self):
        return None

    def selected_alpn_protocol(self):
        return "http/1.1"

    def selected_npn_protocol(self):
        return None

    def getpeercert(self, binary_form=False):
        # The browser checked it; the sandbox never sees it.
        return b"" if binary_form else {}

    def get_channel_binding(self, cb_type="tls-unique"):
        return None

    def pending(self):
        return 0

    def unwrap(self):
        self._tls = False
        return self

    def verify_client_post_handshake(self):
        raise SSLError(_NOT_HERE.format("post-handshake authentication"))


class SSLObject:
    def __init__(self, *args, **kwargs):
        raise SSLError(_NOT_HERE.format("TLS over memory BIOs"))


class MemoryBIO(SSLObject):
    pass


class SSLSession:
    pass


class SSLContext:
    sslsocket_class = SSLSocket
    sslobject_class = SSLObject

    def __init__(self, protocol=None, *args, **kwargs):
        if protocol == PROTOCOL_TLS_SERVER:
            raise SSLError(_NOT_HERE.format("a TLS server"))
        self.protocol = PROTOCOL_TLS_CLIENT if protocol is None else protocol
        self.verify_mode = CERT_REQUIRED
        self.check_hostname = True
        self.options = OP_ALL | OP_NO_SSLv3 | OP_NO_COMPRESSION
        self.verify_flags = VERIFY_X509_TRUSTED_FIRST
        self.minimum_version = TLSVersion.MINIMUM_SUPPORTED
        self.maximum_version = TLSVersion.MAXIMUM_SUPPORTED
        self.post_handshake_auth = False
        self.hostname_checks_common_name = False
        self.keylog_filename = None
        self.security_level = 2
        self.sni_callback = None
        self.num_tickets = 2

    def wrap_socket(self, sock, server_side=False, do_handshake_on_connect=True,
                    suppress_ragged_eofs=True, server_hostname=None, session=None):
        if server_side:
            raise SSLError(_NOT_HERE.format("a TLS server"))
        if not isinstance(sock, _sandtab_net.GateSocket):
            raise SSLError(f"sandtab: cannot wrap {sock!r}: only sockets of the gate carry TLS")
        sock.__class__ = SSLSocket
        sock._tls = True
        sock._server_hostname = server_hostname
        sock.context = self
        return sock

    def wrap_bio(self, *args, **kwargs):
        return SSLObject()

    def load_verify_locations(self, cafile=None, capath=None, cadata=None):
        # The browser's trust store decides.
        pass

    def load_default_certs(self, purpose=Purpose.SERVER_AUTH):
        pass

    def set_default_verify_paths(self):
        pass

    def load_cert_chain(self, certfile, keyfile=None, password=None):
        raise SSLError(_NOT_HERE.format("a client certificate"))

    def set_ciphers(self, ciphers):
        pass

    def get_ciphers(self):
        return []

    def set_alpn_protocols(self, protocols):
        self._alpn = list(protocols)

    def set_npn_protocols(self, protocols):
        pass

    def set_ecdh_curve(self, name):
        pass

    def load_dh_params(self, path):
        pass

    def cert_store_stats(self):
        return {"crl": 0, "x509_ca": 0, "x509": 0}

    def get_ca_certs(self, binary_form=False):
        return []

    def session_stats(self):
        return {}


def create_default_context(purpose=Purpose.SERVER_AUTH, *, cafile=None, capath=None, cadata=None):
    return SSLContext(PROTOCOL_TLS_CLIENT)


def _create_unverified_context(*args, **kwargs):
    context = SSLContext(PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = CERT_NONE
    return context


_create_default_https_context = create_default_context
_create_stdlib_context = _create_unverified_context


def get_default_verify_paths():
    from collections import namedtuple

    paths = namedtuple(
        "DefaultVerifyPaths",
        "cafile capath openssl_cafile_env openssl_cafile openssl_capath_env openssl_capath",
    )
    return paths(None, None, "SSL_CERT_FILE", "", "SSL_CERT_DIR", "")


def wrap_socket(sock, *args, server_hostname=None, **kwargs):
    return create_default_context().wrap_socket(sock, server_hostname=server_hostname)


def RAND_bytes(n):
    return _os.urandom(n)


def RAND_status():
    return True


def RAND_add(string, entropy):
    pass


def cert_time_to_seconds(cert_time):
    import calendar
    import time

    return calendar.timegm(time.strptime(cert_time, "%b %d %H:%M:%S %Y GMT"))


def DER_cert_to_PEM_cert(der):
    import base64
    import textwrap

    text = base64.standard_b64encode(der).decode("ascii")
    return "-----BEGIN CERTIFICATE-----\n" + textwrap.fill(text, 64) + "\n-----END CERTIFICATE-----\n"


def PEM_cert_to_DER_cert(pem):
    import base64

    body = pem.strip().split("-----")[2]
    return base64.decodebytes(body.encode("ascii"))


def get_server_certificate(addr, *args, **kwargs):
    raise SSLError(_NOT_HERE.format("reading a server's certificate"))

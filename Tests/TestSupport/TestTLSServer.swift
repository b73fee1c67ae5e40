import Foundation
import HarkCore

/// A real TLS server on loopback in front of one of the plain test servers, as a Jenkins (or
/// any server) behind a company's TLS-terminating proxy is: Python's `ssl` module does the
/// handshake with a self-signed certificate made at test time by the openssl command line
/// (for 127.0.0.1, so only trust and the pin decide), and every byte is passed on to the
/// plain server unchanged. A client that refuses the certificate just closes the connection.
public final class TestTLSServer: @unchecked Sendable {
    /// The certificate, its key, and the pin of its public key (`sha256//BASE64`), made once
    /// per test run: key generation is the slow part, and every test may share it.
    public struct Certificate: Sendable {
        public let certificateFile: String
        public let keyFile: String
        public let pin: String
    }

    public static let certificate: Certificate? = try? makeCertificate()

    public let port: Int
    private let process: RunningProcess

    /// `https://127.0.0.1:PORT`.
    public var baseURL: String { "https://127.0.0.1:\(port)" }

    /// Starts the TLS front for the plain server listening on `targetPort`.
    public init(forwardingTo targetPort: Int) throws {
        guard let certificate = Self.certificate else {
            throw TestServerError.tls("openssl could not make a test certificate (is the openssl command installed?)")
        }
        process = try RunningProcess(["/usr/bin/env", "python3", "-c", Self.script, certificate.certificateFile,
                                      certificate.keyFile, String(targetPort)],
                                     environment: ProcessInfo.processInfo.environment)
        // The script prints its port once it listens.
        var line = ""
        while !line.hasSuffix("\n") {
            guard process.readStdout(atLeast: line.utf8.count + 1) else {
                process.kill()
                process.wait()
                throw TestServerError.tls("the TLS server did not start: " + process.stderrText)
            }
            line = process.stdoutText
        }
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestServerError.tls("the TLS server printed \(line)")
        }
        self.port = port
    }

    deinit {
        process.kill()
        process.wait()
    }

    /// A self-signed certificate for IP 127.0.0.1 (OpenSSL 3 marks it a CA, so it can be its
    /// own trust anchor in a `ca` bundle), and the SHA-256 of its DER public key, base64, the
    /// form `curl --pinnedpubkey` and hark's `pin` take.
    static func makeCertificate() throws -> Certificate {
        let folder = NSTemporaryDirectory() + "hark-tls-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let certificate = folder + "/cert.pem", key = folder + "/key.pem", publicKey = folder + "/pub.der"
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1",
                     "-addext", "subjectAltName=IP:127.0.0.1"])
        try openssl(["x509", "-in", certificate, "-pubkey", "-noout", "-out", folder + "/pub.pem"])
        try openssl(["pkey", "-pubin", "-in", folder + "/pub.pem", "-outform", "der", "-out", publicKey])
        let digest = try openssl(["dgst", "-sha256", "-binary", publicKey])
        return Certificate(certificateFile: certificate, keyFile: key, pin: "sha256//" + digest.base64EncodedString())
    }

    @discardableResult
    static func openssl(_ arguments: [String]) throws -> Data {
        let result = try Subprocess.run(["openssl"] + arguments)
        guard result.status == 0 else {
            throw TestServerError.tls("openssl \(arguments[0]) failed: " + String(decoding: result.stderr, as: UTF8.self))
        }
        return result.stdout
    }

    /// A thread per connection: the handshake, then bytes both ways until either side closes.
    static let script = """
        import socket, ssl, sys, threading
        cert, key, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        print(listener.getsockname()[1], flush=True)

        def pump(source, sink):
            try:
                while True:
                    data = source.recv(65536)
                    if not data:
                        break
                    sink.sendall(data)
            except OSError:
                pass
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        def serve(raw):
            try:
                secure = context.wrap_socket(raw, server_side=True)
            except (ssl.SSLError, OSError):
                raw.close()
                return
            upstream = socket.create_connection(("127.0.0.1", target))
            threading.Thread(target=pump, args=(upstream, secure), daemon=True).start()
            pump(secure, upstream)

        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """
}

import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Every test runs over both transports: hark's own (plain http) and libcurl.
@Suite struct HTTPClientTests {
    static let transports: [HTTPClient.Transport] = [.automatic, .curl]

    @Test(arguments: HTTPClientTests.transports)
    func fetchSendsHeadersAndBodyAndReadsTheResponse(_ transport: HTTPClient.Transport) async throws {
        let client = HTTPClient(transport: transport)
        let server = try TestHTTPServer { request, response in
            response.send(status: 201, headers: [("X-Echo", request.header("x-token") ?? "")], text: request.method + " " + request.text)
        }
        let request = HTTPRequest.json(url: server.baseURL + "/chat?x=1", body: ["hi": "there"], headers: [("X-Token", "t0k")])
        let response = try await client.fetch(request)
        #expect(response.status == 201)
        #expect(response.head.header("X-ECHO") == "t0k")
        #expect(response.text == #"POST {"hi":"there"}"#)
        let seen = try #require(server.requests.first)
        #expect(seen.path == "/chat")
        #expect(seen.query == ["x": "1"])
        #expect(seen.header("content-type") == "application/json")
        #expect(seen.header("user-agent")?.hasPrefix("hark/") == true)
    }

    /// `open` returns at the head; `collect(upTo:)` keeps at most the limit of the rest and says
    /// whether that was all of it; `fetch` refuses a body over its limit.
    @Test(arguments: HTTPClientTests.transports)
    func openAndCollectUpToALimit(_ transport: HTTPClient.Transport) async throws {
        let client = HTTPClient(transport: transport)
        let server = try TestHTTPServer { request, response in
            response.startChunked(status: 418)
            for piece in ["abc", "def", "gh"] { response.write(piece) }
        }
        var exact = try await client.open(HTTPRequest(url: server.baseURL))
        #expect(exact.head.status == 418)
        let whole = try await exact.body.collect(upTo: 8)
        #expect(String(decoding: whole.bytes, as: UTF8.self) == "abcdefgh" && whole.whole)
        var short = try await client.open(HTTPRequest(url: server.baseURL))
        let cut = try await short.body.collect(upTo: 7)
        short.stream.cancel()
        #expect(String(decoding: cut.bytes, as: UTF8.self) == "abcdefg" && !cut.whole)
        await #expect(throws: HarkError.protocolViolation("127.0.0.1:\(server.port) sent more than 0 MB")) {
            _ = try await client.fetch(HTTPRequest(url: server.baseURL), maxBytes: 7, retry: .never)
        }
    }

    @Test(arguments: HTTPClientTests.transports)
    func bodyBytesArriveBeforeTheResponseEnds(_ transport: HTTPClient.Transport) async throws {
        let client = HTTPClient(transport: transport)
        let gate = Gate()
        let server = try TestHTTPServer { _, response in
            response.startChunked(headers: [("Content-Type", "text/event-stream")])
            response.write("first")
            gate.wait()
            response.write("second")
        }
        var received: [String] = []
        for try await event in try client.stream(HTTPRequest(url: server.baseURL)) {
            if case .body(let bytes) = event {
                received.append(String(decoding: bytes, as: UTF8.self))
                // The server is still holding "second" back: we got "first" while it streams.
                if received.count == 1 { gate.open() }
            }
        }
        #expect(received.joined() == "firstsecond")
        #expect(received.first == "first")
    }

    @Test(arguments: HTTPClientTests.transports)
    func refusedConnectionIsANetworkError(_ transport: HTTPClient.Transport) async throws {
        let client = HTTPClient(transport: transport)
        let refusing = try RefusingPort()
        let url = refusing.baseURL
        await #expect(throws: HarkError.network(host: HTTPRequest.displayHost(of: url), reason: "connection refused")) {
            _ = try await client.fetch(HTTPRequest(url: url))
        }
    }

    @Test(arguments: HTTPClientTests.transports)
    func silenceAfterTheFirstByteHitsTheIdleTimeout(_ transport: HTTPClient.Transport) async throws {
        let client = HTTPClient(transport: transport)
        let gate = Gate()
        let server = try TestHTTPServer { _, response in
            response.startChunked()
            response.write("a")
            gate.wait()
        }
        defer { gate.open() }
        var request = HTTPRequest(url: server.baseURL)
        request.timeouts = HTTPTimeouts(connect: 5, firstByte: 5, idle: 0.3)
        do {
            _ = try await client.fetch(request)
            Issue.record("expected a timeout")
        } catch let error as HarkError {
            guard case .timeout(_, let phase, _) = error else { Issue.record("got \(error)"); return }
            #expect(phase == "with no data")
            #expect(error.exitCode == .network)
        }
    }

    @Test(arguments: HTTPClientTests.transports)
    func cancellingStopsTheTransferAtOnce(_ transport: HTTPClient.Transport) async throws {
        let client = HTTPClient(transport: transport)
        let gate = Gate()
        let closed = Gate()
        let server = try TestHTTPServer { _, response in
            response.startChunked()
            response.write("x")
            gate.wait()
            // Keep writing until the client is gone.
            while response.write("more") { usleep(1000) }
            closed.open()
        }
        defer { gate.open() }
        let stream = try client.stream(HTTPRequest(url: server.baseURL))
        let task = Task {
            var count = 0
            for try await event in stream {
                if case .body = event { count += 1 }
            }
            return count
        }
        // Wait for the first byte to have been seen by the server-side request.
        while server.requests.isEmpty { await Task.yield() }
        let cancelledAt = DispatchTime.now().uptimeNanoseconds
        task.cancel()
        gate.open()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        // A generous bound: in a full parallel run on two cores this has been seen to take
        // over 10 s (cause not yet known; the elapsed times below are printed to find it).
        let endedAt = DispatchTime.now().uptimeNanoseconds
        let closedInTime = await closed.opened(within: 60)
        let seconds = { (from: UInt64) in Double(DispatchTime.now().uptimeNanoseconds - from) / 1e9 }
        if seconds(cancelledAt) > 5 {
            print("cancellingStopsTheTransferAtOnce(\(transport)): the task ended \(Double(endedAt - cancelledAt) / 1e9) s "
                  + "after the cancel; the server saw the close by \(seconds(cancelledAt)) s")
        }
        #expect(closedInTime, "the server saw the connection close")
    }

    @Test(arguments: HTTPClientTests.transports)
    func headerSecretsAndPathsNeverReachErrorMessages(_ transport: HTTPClient.Transport) async throws {
        let client = HTTPClient(transport: transport)
        let refusing = try RefusingPort()
        let url = refusing.baseURL + "/webhook/secret-path-123?token=abc"
        do {
            _ = try await client.fetch(HTTPRequest(url: url, headers: [("Authorization", "Bearer s3cr3t")]))
            Issue.record("expected an error")
        } catch {
            #expect(!error.userMessage.contains("secret-path"))
            #expect(!error.userMessage.contains("s3cr3t"))
            #expect(!error.userMessage.contains("abc"))
        }
    }

    @Test(arguments: HTTPClientTests.transports)
    func multipartUploadsFieldsAndFiles(_ transport: HTTPClient.Transport) async throws {
        let client = HTTPClient(transport: transport)
        let directory = TemporaryDirectory()
        let path = directory.write("notes.txt", "file body")
        let server = try TestHTTPServer { request, response in
            response.send(text: request.header("content-type") ?? "")
        }
        let request = HTTPRequest(method: "POST", url: server.baseURL, body: .multipart([
            MultipartPart(name: "chatInput", content: .text("hello")),
            MultipartPart(name: "files", content: .file(path: path), filename: "notes.txt", contentType: "text/plain"),
        ]))
        let response = try await client.fetch(request)
        #expect(response.text.hasPrefix("multipart/form-data; boundary="))
        let body = try #require(server.requests.first).text
        #expect(body.contains("name=\"chatInput\"\r\n\r\nhello"))
        #expect(body.contains("filename=\"notes.txt\""))
        #expect(body.contains("file body"))
    }

    @Test(arguments: HTTPClientTests.transports)
    func gzipBodiesAreDecoded(_ transport: HTTPClient.Transport) async throws {
        let client = HTTPClient(transport: transport)
        let text = String(repeating: "Started by user ann\nBuilding in workspace\n", count: 500)
        let compressed = try await Subprocess.run(["gzip", "-c"], streams: .captured(input: Data(text.utf8))).stdout
        let server = try TestHTTPServer { request, response in
            guard request.header("accept-encoding")?.contains("gzip") == true else {
                response.send(status: 400, text: "expected Accept-Encoding: gzip")
                return
            }
            response.startChunked(headers: [("Content-Encoding", "gzip"), ("Content-Type", "text/plain")])
            let bytes = [UInt8](compressed)
            response.write(Array(bytes[0..<bytes.count / 2]))
            response.write(Array(bytes[(bytes.count / 2)...]))
        }
        let response = try await client.fetch(HTTPRequest(url: server.baseURL + "/job/app/1/logText/progressiveText"))
        #expect(response.status == 200)
        #expect(response.text == text)
    }
}

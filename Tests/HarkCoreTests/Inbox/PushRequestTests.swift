import Testing
@testable import HarkCore

/// A push notification's request as it arrives, in pieces cut anywhere: whole once its body
/// is in, refused with the status to answer when it cannot be taken.
@Suite struct PushRequestTests {
    static let body = #"{"statusUpdate":{"taskId":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}}"#
    static let request = "POST / HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nContent-Type: application/json\r\n"
        + "X-A2A-Notification-Token: abc\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body

    @Test func aRequestCutAnywhereIsWholeOnlyOnceItsBodyIsIn() throws {
        let bytes = Array(Self.request.utf8)
        for cut in 0..<bytes.count {
            #expect(try PushRequest.parse(Array(bytes[..<cut])) == nil, "cut at \(cut)")
        }
        let whole = try #require(try PushRequest.parse(bytes))
        #expect(whole.method == "POST")
        #expect(whole.notificationToken == "abc")
        #expect(String(decoding: whole.body, as: UTF8.self) == Self.body)
        let event = try A2AWire.event(fromResult: try JSON.parse(Self.body))
        #expect(PushListener.taskID(of: event) == "t-1")
    }

    @Test func a2aGoSpellingOfTheTokenIsReadToo() throws {
        let request = try #require(try PushRequest.parse(Array("POST / HTTP/1.1\r\nA2A-Notification-Token: xyz\r\n\r\n".utf8)))
        #expect(request.notificationToken == "xyz")
        #expect(request.body.isEmpty)
    }

    @Test func whatCannotBeTakenIsRefusedWithItsStatus() {
        func refusal(_ text: String) -> Int? {
            do { _ = try PushRequest.parse(Array(text.utf8)); return nil } catch PushRequest.Failure.refuse(let status, _) {
                return status
            } catch { return -1 }
        }
        #expect(refusal("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == 411)
        #expect(refusal("POST / HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n") == 413)
        #expect(refusal("POST / HTTP/1.1\r\nContent-Length: many\r\n\r\n") == 400)
        #expect(refusal("HELLO\r\n\r\n") == 400)
        #expect(refusal(String(repeating: "x", count: PushRequest.headLimit + 1)) == 431)
        #expect(PushListener.same("abc", "abc") && !PushListener.same("abc", "abd") && !PushListener.same("abc", "ab"))
    }
}

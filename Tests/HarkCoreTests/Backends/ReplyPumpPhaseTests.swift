import Testing
@testable import HarkCore

/// Where an HTTP reply's pipeline is and what a pull does next: the pure phase, with no task,
/// no server and no decoder (the pump that performs it is tested through every HTTP kind).
@Suite struct ReplyPumpPhaseTests {
    /// A step as the test reads it: the error of a raise by what the user would read.
    static func named(_ step: ReplyPumpPhase.Step) -> String {
        switch step {
        case .open: "open"
        case .readSaid: "read said"
        case .readBody: "read body"
        case .raise(let failure): "raise: " + failure.userMessage
        case .end: "end"
        }
    }

    static func steps(_ phase: inout ReplyPumpPhase, _ count: Int) -> [String] {
        (0..<count).map { _ in named(phase.step()) }
    }

    static let ok = HTTPResponseHead(status: 200, headers: ["content-type": "text/event-stream"])

    @Test func aRequestOpensReadsItsBodyAndEndsWhenTheBodyDoes() {
        var phase = ReplyPumpPhase()
        #expect(Self.named(phase.step()) == "open")
        phase.opened(host: "127.0.0.1:8080")
        #expect(Self.steps(&phase, 2) == ["read body", "read body"], "nothing ends a reply before its body does")
        #expect(phase.headArrived(Self.ok) == .start)
        #expect(Self.named(phase.step()) == "read body")
        let finishes = phase.bodyEnded()
        #expect(finishes, "a body that ended after a head is the decoder's to finish")
        #expect(Self.steps(&phase, 2) == ["end", "end"])
    }

    @Test func aStatusOtherThan2xxFailsTheReplyWithWhatTheServerSaid() {
        var phase = ReplyPumpPhase()
        _ = phase.step()
        phase.opened(host: "127.0.0.1:9")
        let head = HTTPResponseHead(status: 500, headers: ["content-type": "application/json"])
        #expect(phase.headArrived(head) == .readRefusal)
        phase.refused(saying: Array(#"{"error":{"message":"model not loaded"}}"#.utf8))
        let expected = HarkError.http(status: 500, host: "127.0.0.1:9", serverMessage: "model not loaded")
        guard case .raise(let failure) = phase.step() else { Issue.record("the refusal is not raised"); return }
        #expect(failure as? HarkError == expected)
        #expect(Self.named(phase.step()) == "end", "raised once")
    }

    @Test func aRefusalWhoseBodyBrokeOffStillNamesItsStatus() {
        var phase = ReplyPumpPhase()
        phase.opened(host: "h")
        #expect(phase.headArrived(HTTPResponseHead(status: 401, headers: [:])) == .readRefusal)
        phase.refused(saying: [])
        guard case .raise(let failure) = phase.step() else { Issue.record("the refusal is not raised"); return }
        #expect(failure as? HarkError == .unauthorized(status: 401, host: "h", serverMessage: nil))
    }

    @Test func aConnectionClosedBeforeAnyHeadIsAProtocolFault() {
        var phase = ReplyPumpPhase()
        phase.opened(host: "127.0.0.1:7")
        let finishes = phase.bodyEnded()
        #expect(!finishes, "no decoder finishes a body that never began")
        guard case .raise(let failure) = phase.step() else { Issue.record("nothing raised"); return }
        #expect(failure as? HarkError == .protocolViolation("127.0.0.1:7 sent no response"))
        #expect(Self.named(phase.step()) == "end")
    }

    @Test func anOpenersStepsAreReadUntilTheyHandOverAResponseWithItsHead() {
        var phase = ReplyPumpPhase()
        #expect(Self.named(phase.step()) == "open")
        phase.stepsStarted()
        #expect(Self.steps(&phase, 3) == ["read said", "read said", "read said"])
        phase.opened(host: "nyla")
        #expect(phase.headArrived(Self.ok) == .start)
        #expect(Self.named(phase.step()) == "read body")
    }

    @Test func aFailureAnywhereIsRaisedOnceAfterWhichTheReplyHasEnded() {
        for reach in 0..<3 {
            var phase = ReplyPumpPhase()
            if reach > 0 { phase.stepsStarted() }
            if reach > 1 { phase.opened(host: "h") }
            phase.failed(HarkError.backend("cut"))
            #expect(Self.steps(&phase, 3) == ["raise: cut", "end", "end"], "failed at reach \(reach)")
        }
    }

    @Test func aFailureOfTheDecodersFinishOverridesTheEnd() {
        var phase = ReplyPumpPhase()
        phase.opened(host: "h")
        _ = phase.headArrived(Self.ok)
        let finishes = phase.bodyEnded()
        #expect(finishes)
        phase.failed(HarkError.protocolViolation("the stream broke off"))
        #expect(Self.steps(&phase, 2) == ["raise: " + HarkError.protocolViolation("the stream broke off").userMessage, "end"])
    }

    @Test func aLastStepEndsTheReplyWithoutReadingTheRestOfTheBody() {
        var phase = ReplyPumpPhase()
        phase.opened(host: "h")
        _ = phase.headArrived(Self.ok)
        phase.finishedEarly()
        #expect(Self.named(phase.step()) == "end")
    }
}

/// Where one HTTP reply's pipeline is, and what the consumer's next pull makes it do: a value
/// with no I/O, no task and no locks. `ReplyPump` (HTTPReply.swift) holds the response and
/// the decoder, performs each step and reports what came of it here, so every way a reply
/// ends (a refused status, a body cut before its head, a failure, a last step) is decided in
/// one place and tested without a server (ReplyPumpPhaseTests).
struct ReplyPumpPhase {
    enum Phase {
        /// Nothing sent yet.
        case unopened
        /// An opener's steps run (a login, a wait): what they say is handed out as it comes.
        case opening
        /// The response is open; `head` once it has been read. `host` names who answered.
        case open(host: String, head: HTTPResponseHead?)
        /// Failed: raised once the events decoded before the failure have been handed out
        /// (one network read can hold both a reply's last words and the error that ends it).
        case failing(Error)
        case ended
    }

    /// What the pump does at a pull when no decoded event waits to be handed out.
    enum Step {
        /// Send the request, or start the opener's steps.
        case open
        /// Take the next thing the opener's steps say (or, once they end, their response).
        case readSaid
        /// Read the next HTTP event and decode what it completes.
        case readBody
        case raise(Error)
        case end
    }

    /// What to do with a response's head.
    enum HeadVerdict: Equatable {
        /// 2xx: the decoder starts.
        case start
        /// Any other status: the body is read for what the server says, then `refused(saying:)`.
        case readRefusal
    }

    private(set) var phase = Phase.unopened

    mutating func step() -> Step {
        switch phase {
        case .unopened: return .open
        case .opening: return .readSaid
        case .open: return .readBody
        case .failing(let failure):
            phase = .ended
            return .raise(failure)
        case .ended: return .end
        }
    }

    /// The opener's steps run; what they say is read until they hand over a response.
    mutating func stepsStarted() { phase = .opening }

    /// A response is open, its head read or not (`headArrived` follows when it is).
    mutating func opened(host: String) { phase = .open(host: host, head: nil) }

    mutating func headArrived(_ head: HTTPResponseHead) -> HeadVerdict {
        guard case .open(let host, _) = phase else { return .start }
        phase = .open(host: host, head: head)
        return head.isSuccess ? .start : .readRefusal
    }

    /// The one place a status other than 2xx becomes the reply's error: what the server said
    /// with it, or the status alone when its body broke off (the status is the news).
    mutating func refused(saying body: [UInt8]) {
        guard case .open(let host, let head?) = phase else { return }
        phase = .failing(ServerMessage.error(status: head.status, host: host, body: body,
                                             contentType: head.header("content-type")))
    }

    /// The body ended. True when the decoder is to finish it; false when no response came at
    /// all (the connection closed before a head), which fails the reply.
    mutating func bodyEnded() -> Bool {
        guard case .open(let host, let head) = phase else { return false }
        guard head != nil else {
            phase = .failing(HarkError.protocolViolation("\(host) sent no response"))
            return false
        }
        phase = .ended
        return true
    }

    /// A reply with a last step reached the decoder's `.finished`: nothing more is read.
    mutating func finishedEarly() { phase = .ended }

    /// Anything that failed while opening or reading (the request, the steps, the decoder).
    mutating func failed(_ failure: Error) { phase = .failing(failure) }
}

/// A model session's reply when more than the HTTP stream is needed: the served model is
/// started first (with a status line saying so, as it takes seconds), and with `/think off`
/// reasoning is dropped, after one status line saying the model thinks. A stop while the
/// server starts ends the reply at once; the server goes on starting for the next message.
final class ModelReplyStream: @unchecked Sendable {
    typealias Events = AsyncThrowingStream<ReplyEvent, Error>

    private let announcement: String?
    private let hidesReasoning: Bool
    private let base: @Sendable () async throws -> String
    private let stream: @Sendable (String) -> Events
    private var inner: Events.AsyncIterator?
    private var announced = false
    private var saidThinking = false

    private init(announcement: String?, hidesReasoning: Bool, base: @escaping @Sendable () async throws -> String,
                 stream: @escaping @Sendable (String) -> Events) {
        self.announcement = announcement
        self.hidesReasoning = hidesReasoning
        self.base = base
        self.stream = stream
    }

    /// `ready` is the API base when it is known without waiting (a url, a server that runs):
    /// then, with reasoning shown, the HTTP stream is the reply as it is.
    static func make(ready: String?, starting: LocalModelServer?, hidesReasoning: Bool,
                     base: @escaping @Sendable () async throws -> String,
                     stream: @escaping @Sendable (String) -> Events) -> Events {
        if let ready, !hidesReasoning { return stream(ready) }
        let announcement = ready == nil ? starting.map { "starting llama.cpp's server with \($0.model.name)…" } : nil
        let knownBase: @Sendable () async throws -> String
        if let ready { knownBase = { ready } } else { knownBase = base }
        let reply = ModelReplyStream(announcement: announcement, hidesReasoning: hidesReasoning, base: knownBase, stream: stream)
        return Events { try await reply.next() }
    }

    private func next() async throws -> ReplyEvent? {
        if inner == nil {
            if let announcement, !announced {
                announced = true
                return .status(announcement)
            }
            let base = try await CancellableWait.value(of: self.base)
            inner = stream(base).makeAsyncIterator()
        }
        while true {
            guard var iterator = inner, let event = try await iterator.next() else { return nil }
            inner = iterator
            if hidesReasoning, case .reasoning = event {
                if saidThinking { continue }
                saidThinking = true
                return .status("thinking (hidden; /think on shows it)")
            }
            return event
        }
    }
}

/// Awaits work that must not be cut short (a server starting, which the next message uses),
/// yet returns as soon as the waiting task is cancelled.
enum CancellableWait {
    static func value<T: Sendable>(of work: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = OnceResult<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                once.wait(continuation)
                Task {
                    do { once.resume(.success(try await work())) } catch { once.resume(.failure(error)) }
                }
            }
        } onCancel: {
            once.resume(.failure(CancellationError()))
        }
    }

    /// Delivers the first result to the continuation, whichever comes first.
    private final class OnceResult<T: Sendable>: @unchecked Sendable {
        private let state = Locked<(continuation: CheckedContinuation<T, Error>?, result: Result<T, Error>?)>((nil, nil))

        func wait(_ continuation: CheckedContinuation<T, Error>) {
            let ready: Result<T, Error>? = state.update { state in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }

        func resume(_ result: Result<T, Error>) {
            let waiting: CheckedContinuation<T, Error>? = state.update { state in
                guard state.result == nil else { return nil }
                state.result = result
                defer { state.continuation = nil }
                return state.continuation
            }
            waiting?.resume(with: result)
        }
    }
}

/// A model session's reply when more than the HTTP stream is needed: the served model is
/// started first (with a status line saying so, as it takes seconds), and with `/think off`
/// reasoning is dropped, after one status line saying the model thinks. A stop while the
/// server starts ends the reply at once; the server goes on starting for the next message.
enum ModelReplyStream {
    typealias Events = AsyncThrowingStream<ReplyEvent, Error>

    /// `ready` is the API base when it is known without waiting (a url, a server that runs):
    /// then, with reasoning shown, the HTTP stream is the reply as it is.
    static func make(ready: String?, starting: LocalModelServer?, hidesReasoning: Bool,
                     base: @escaping @Sendable () async throws -> String,
                     stream: @escaping @Sendable (String) -> Events) -> Events {
        if let ready, !hidesReasoning { return stream(ready) }
        let announcement = ready == nil ? starting.map { "starting llama.cpp's server with \($0.model.name)…" } : nil
        let reply = Deferred {
            let known = if let ready { ready } else { try await CancellableWait.value(of: base) }
            return stream(known).makeAsyncIterator()
        }.prepending(announcement.map { [.status($0)] } ?? [])
        guard hidesReasoning else { return ReplyStream.pulled(reply) }
        return ReplyStream.pulled(reply.compactMap(state: false) { saidThinking, event in
            guard case .reasoning = event else { return event }
            if saidThinking { return nil }
            saidThinking = true
            return .status("thinking (hidden; /think on shows it)")
        })
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

import FoundationEssentials
import Glibc

/// Hands a transfer's events from the curl thread to an async consumer. The buffer is
/// bounded: when the consumer falls behind, the curl thread waits, so a 100 MB reply to a slow
/// terminal cannot grow memory without limit.
final class HTTPBodyChannel: @unchecked Sendable {
    private let condition = Condition()
    private var queue: [HTTPEvent] = []
    private var head = 0
    private var bufferedBytes = 0
    private var finished = false
    private var failure: Error?
    private var waiter: CheckedContinuation<HTTPEvent?, Error>?
    private(set) var cancelled = false
    private var quiet = false
    private let limit: Int
    private var cancelHandler: (@Sendable () -> Void)?
    /// Body buffers the consumer has read, for the transfer to fill again: allocating one per
    /// read made the allocator map fresh pages for each (a page fault every 4 KB).
    private var spareBuffers: [[UInt8]] = []

    /// What to do when the consumer cancels (wake the transfer); runs at once if it already has.
    var onCancel: (@Sendable () -> Void)? {
        get { condition.withLock { cancelHandler } }
        set {
            condition.lock()
            cancelHandler = newValue
            let already = cancelled
            condition.unlock()
            if already { newValue?() }
        }
    }

    /// 2 MB: a consumer slower than the network (decoding, storing, writing out) keeps the
    /// queue full, and every 512 KB read in it is a buffer of its own; at 8 MB a 50 MB stream
    /// kept about 26 buffers in flight, faulted in page by page (peak memory 35 MB, 29 MB now).
    /// The socket's own buffer still holds what arrives meanwhile.
    init(limit: Int = 2 << 20) {
        self.limit = limit
    }

    /// Called on the curl thread. Returns false once the consumer has gone away.
    func push(_ event: HTTPEvent) -> Bool {
        condition.lock()
        while bufferedBytes > limit && !cancelled { condition.wait() }
        if cancelled {
            condition.unlock()
            return false
        }
        if let waiter {
            self.waiter = nil
            condition.unlock()
            waiter.resume(returning: event)
            return true
        }
        queue.append(event)
        bufferedBytes += Self.size(of: event)
        condition.unlock()
        return true
    }

    /// An empty buffer for the next read's body: one the consumer gave back, when there is one.
    func spareBuffer(capacity: Int) -> [UInt8] {
        condition.lock()
        var buffer = spareBuffers.popLast() ?? []
        condition.unlock()
        buffer.removeAll(keepingCapacity: true)
        buffer.reserveCapacity(capacity)
        return buffer
    }

    /// Gives back body buffers whose bytes the consumer has read, moved out of `buffers` (so
    /// the caller keeps no reference that would make the transfer copy instead of reuse). A
    /// few are kept, so memory stays what the bounded queue allows. (A buffer still referenced
    /// elsewhere is copied on reuse, as any array is: recycling cannot change bytes someone holds.)
    func recycle(_ buffers: inout [[UInt8]]) {
        condition.lock()
        while spareBuffers.count < Self.spareLimit, let buffer = buffers.popLast() { spareBuffers.append(buffer) }
        condition.unlock()
        buffers.removeAll(keepingCapacity: true)
    }

    /// Enough for the transfer to refill while the consumer decodes what it took.
    static let spareLimit = 8

    func finish(throwing error: Error?) {
        condition.lock()
        guard !finished else {
            condition.unlock()
            return
        }
        finished = true
        failure = error
        let waiter = self.waiter
        self.waiter = nil
        condition.unlock()
        if let waiter {
            if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
        }
    }

    /// Whether a silence is expected now (the server waits for our answer to its question): the
    /// idle timeout does not count it.
    var quietExpected: Bool {
        get { condition.withLock { quiet } }
        set { condition.withLock { quiet = newValue } }
    }

    func cancel() {
        condition.lock()
        let alreadyCancelled = cancelled
        cancelled = true
        condition.broadcast()
        let handler = cancelHandler
        condition.unlock()
        if !alreadyCancelled { handler?() }
    }

    /// The next queued event if one is there now, else nil at once (never waits, never reports
    /// the end): lets a consumer take in one step what arrived while it was busy.
    func nextIfReady() -> HTTPEvent? {
        condition.lock()
        defer { condition.unlock() }
        guard head < queue.count, !cancelled else { return nil }
        return dequeue()
    }

    /// Takes the queued event at the head; with the lock held and the queue not empty.
    private func dequeue() -> HTTPEvent {
        let event = queue[head]
        // Not kept in the queue: a body handed back (recycle) must be the only reference to be
        // reused in place.
        queue[head] = .body([])
        head += 1
        if head > 64 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        bufferedBytes -= Self.size(of: event)
        condition.signal()
        return event
    }

    func next() async throws -> HTTPEvent? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPEvent?, Error>) in
                condition.lock()
                if head < queue.count {
                    let event = dequeue()
                    condition.unlock()
                    continuation.resume(returning: event)
                } else if finished || cancelled {
                    let error = failure ?? (cancelled ? CancellationError() : nil)
                    condition.unlock()
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: nil) }
                } else {
                    waiter = continuation
                    condition.unlock()
                }
            }
        } onCancel: {
            self.cancel()
            condition.lock()
            let waiter = self.waiter
            self.waiter = nil
            condition.unlock()
            waiter?.resume(throwing: CancellationError())
        }
    }

    private static func size(of event: HTTPEvent) -> Int {
        if case .body(let bytes) = event { return bytes.count }
        return 0
    }
}

/// One answer of `…/N/logText/progressiveText?start=OFFSET`, read as Jenkins means it
/// (stapler's LargeText.doProgressText):
/// - `X-Text-Size` is the offset to ask from next, in bytes of the log file. The body is
///   not that long: line ends arrive as CR LF, and the body may be gzip-encoded. So the
///   header is always used and the body never counted.
/// - `X-More-Data: true` while the build runs; the header is absent once the log is complete.
/// - A start past the end of the log (it was rotated or replaced) makes Jenkins send the
///   log from 0, with an `X-Text-Size` below the start that was asked for.
/// - While the build runs only whole lines are sent, so a body may be empty.
public struct ProgressiveText: Sendable, Equatable {
    public var body: [UInt8]
    public var nextStart: Int
    public var moreData: Bool
    public var restarted: Bool

    public init(head: HTTPResponseHead, body: [UInt8], requestedStart: Int) throws {
        self.body = body
        if let size = head.header("x-text-size") {
            guard let value = Int(size.trimmingSpaces), value >= 0 else {
                throw HarkError.protocolViolation("Jenkins sent X-Text-Size \"\(size)\", which is not a byte offset")
            }
            nextStart = value
        } else {
            // Not Jenkins as documented; counting the body is the best guess left.
            nextStart = requestedStart + body.count
        }
        moreData = head.header("x-more-data")?.lowercased() == "true"
        restarted = nextStart < requestedStart
    }
}

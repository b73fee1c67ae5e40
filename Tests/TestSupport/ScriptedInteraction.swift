import Foundation
import HarkCore

/// A user at the keyboard answering a command's questions from a script: each `ask` takes
/// the next answer (nil when the script is used up, as a pipe would answer) and records the
/// question and whether it was asked without echo.
public final class ScriptedInteraction: Interaction, @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [String]
    private var recorded: [(prompt: String, secret: Bool)] = []

    public init(_ answers: [String]) {
        self.answers = answers
    }

    public var isInteractive: Bool { true }

    public var questions: [(prompt: String, secret: Bool)] { lock.withLock { recorded } }

    public func ask(_ prompt: String, secret: Bool) async -> String? {
        lock.withLock {
            recorded.append((prompt, secret))
            return answers.isEmpty ? nil : answers.removeFirst()
        }
    }
}

import Foundation
import HarkCore

/// The person at the keyboard, for tests: answers questions from a list, in order, and
/// records what was asked and whether it was asked without echo. nil when out of answers.
public final class ScriptedInteraction: Interaction, @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [String]
    private var asked: [(prompt: String, secret: Bool)] = []

    public init(_ answers: [String]) {
        self.answers = answers
    }

    public var isInteractive: Bool { true }

    public var questions: [(prompt: String, secret: Bool)] { lock.withLock { asked } }

    public func ask(_ prompt: String, secret: Bool) async -> String? {
        lock.withLock {
            asked.append((prompt, secret))
            return answers.isEmpty ? nil : answers.removeFirst()
        }
    }
}

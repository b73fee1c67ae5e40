import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Replies read aloud while they stream: a loopback OpenAI server holds the reply open after
/// its first sentence, and espeak-ng must already be speaking it.
@Suite struct SpeakingReplyTests {
    @Test func theFirstSentenceIsSpokenBeforeTheReplyHasEnded() async throws {
        let hold = Gate()
        let server = try TestOpenAIServer { _ in
            [.text("Hello there"), .text(". This is the sec"), .wait(hold), .text("ond sentence."), .done]
        }
        defer { hold.open() }
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
        let workspace = try home.workspace()
        try workspace.switchSession(to: "bot")
        let log = SpeechLog(expecting: 2)
        let rate = try Espeak.shared.load()
        let recorder = PCMRecorder(sampleRate: rate)
        let speaker = Speaker(openSink: { _ in recorder }, onEvent: { log.record($0) })
        defer { speaker.close() }
        guard case .reply(let job) = try await workspace.execute("hi") else {
            Issue.record("no reply")
            return
        }
        job.attach(SpeakingObserver(Quiet(), speaker: ReplySpeaker(output: speaker, parameters: VoiceParameters(voice: "en-us"))))

        #expect(await log.firstStarted.opened(within: 300), "the first sentence was not spoken while the reply was held")
        #expect(log.sentencesStarted == ["Hello there."])
        #expect(job.isRunning, "the server still holds the rest")
        #expect(!recorder.samples.isEmpty, "its sound reached the output")
        hold.open()
        #expect(await job.wait() == .complete)
        #expect(await log.allFinished.opened(within: 300))
        #expect(log.sentencesFinished == ["Hello there.", "This is the second sentence."])
    }
}

/// Records the sentences a speaker started, finished and cut off, opening gates as it does.
final class SpeechLog: @unchecked Sendable {
    private let lock = NSLock()
    private var started: [String] = []
    private var finished: [String] = []
    private var cut: [String] = []
    let firstStarted = Gate()
    let allFinished = Gate()
    let interrupted = Gate()
    let expected: Int

    init(expecting count: Int) {
        expected = count
    }

    func record(_ event: SpeechEvent) {
        lock.withLock {
            switch event {
            case .started(let text):
                started.append(text)
                if started.count == 1 { firstStarted.open() }
            case .finished(let text):
                finished.append(text)
                if finished.count == expected { allFinished.open() }
            case .interrupted(let text):
                cut.append(text)
                interrupted.open()
            case .failed:
                allFinished.open()
                interrupted.open()
            }
        }
    }

    var sentencesStarted: [String] { lock.withLock { started } }
    var sentencesFinished: [String] { lock.withLock { finished } }
    var sentencesCut: [String] { lock.withLock { cut } }
}

/// A reply watcher that shows nothing (the speech is what these tests look at).
final class Quiet: ReplyObserver, @unchecked Sendable {
    func reply(_ job: ReplyJob, event: ReplyEvent) {}
    func replyEnded(_ job: ReplyJob, outcome: ReplyOutcome) {}
}

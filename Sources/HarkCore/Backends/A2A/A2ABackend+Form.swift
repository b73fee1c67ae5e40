import FoundationEssentials

extension A2ABackend {
    /// The most forms one message answers in a row: an agent that asks again whatever it is
    /// told (scripted answers it does not take) is left waiting for a person instead.
    static let formRounds = 8

    /// The run's question desk, shared with MCP's questions so that `--answer` reaches both,
    /// asked through whoever answers the workspace's questions at that moment.
    static func answerer(_ environment: BackendEnvironment) -> @Sendable (Question) async -> (QuestionOutcome, [String]) {
        if let tools = environment.tools { return { await tools.answer($0) } }
        let desk = QuestionDesk(environment: environment.environment)
        let interactions = environment.interactions
        let clock = environment.clock
        return { await desk.answer($0, interaction: interactions.current, today: FormDate.local(clock.now())) }
    }

    /// While the task waits for a form (A2AForm): asks it, and sends the answers as a data
    /// part in the same task (its taskId and contextId), the reply going on with what the
    /// agent does next. Declined or dismissed, the task stays input-required and the next
    /// message in the thread answers it in words.
    /// Asked once the reply so far is out (`drained`), so that the question follows the
    /// agent's words on the screen.
    func answerForms(endpoint: A2AClient.Endpoint, progress: A2AReplyProgress, drained: () async -> Void,
                     yield: (ReplyEvent) async throws -> Void) async throws {
        var rounds = 0
        while let parts = progress.takeForm() {
            rounds += 1
            guard let form = A2AForm(parts: parts) else {
                // Shaped like a form, with a field hark cannot ask: shown, and answered in words.
                try await yield(.text("\n" + A2AReplyProgress.text(of: parts.filter(A2AReplyProgress.isForm))))
                try await waitForWords(yield)
                return
            }
            let question = form.question(asker: session.name)
            var (outcome, lines) = (QuestionOutcome.decline,
                                    ["\(session.name) asked for its form \(Self.formRounds) times in a row; " + (question.refusal ?? "")])
            if rounds <= Self.formRounds {
                await drained()
                (outcome, lines) = await answer(question)
            }
            for line in lines { try await yield(.notice(line)) }
            guard case .accept(let values) = outcome, let taskID = progress.taskID else {
                try await waitForWords(yield)
                return
            }
            try Task.checkCancellation()
            let message = A2AWire.message(text: "", data: values, files: [], messageID: UUID().uuidString.lowercased(),
                                          contextID: progress.contextID, taskID: taskID, version: endpoint.version)
            progress.resumeAfterAnswer()
            let params = A2AWire.sendParams(message: message, streaming: endpoint.card.streaming, tenant: endpoint.tenant,
                                            version: endpoint.version)
            try await exchange(params, endpoint: endpoint, progress: progress, yield: yield)
        }
    }

    /// The reply ends with the task input-required, as for a question in words.
    private func waitForWords(_ yield: (ReplyEvent) async throws -> Void) async throws {
        try await yield(.status("input-required: your next message answers the agent"))
        try await yield(.finished(reason: A2AWire.TaskState.inputRequired.rawValue))
    }
}

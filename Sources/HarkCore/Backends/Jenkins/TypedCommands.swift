/// Plain lines typed in a Jenkins session: there is no one to chat with, so a line is read
/// as a command in words (`build app BRANCH=main`, `log app`, `status app`, a job's name);
/// anything else is answered with one line saying what works.
enum TypedCommands {
    /// The first word and the slash-command it stands for.
    static let verbs: [String: String] = [
        "build": "build", "run": "build", "log": "log", "console": "log", "status": "status",
        "stop": "stop-build", "jobs": "jobs", "job": "job", "show": "job", "queue": "queue", "refresh": "refresh",
    ]

    static let explanation = "in a Jenkins session, type build JOB [KEY=VALUE…], log JOB, status JOB or a job's name; "
        + "/help lists the commands"

    static func invocation(for text: String, jobs: () async throws -> [JobSummary], session: String) async throws -> CommandInvocation {
        let words = (try? Tokenizer.split(text)) ?? []
        guard let first = words.first else { throw HarkError.usage(explanation) }
        if let command = verbs[first.lowercased()] {
            return invocation(command, Array(words.dropFirst()))
        }
        guard words.count == 1 else { throw HarkError.usage(explanation) }
        let known = try await jobs()
        if JenkinsServer.candidates(for: first, in: known).count == 1 {
            return invocation("job", [first])
        }
        if let suggestion = JenkinsServer.suggestion(for: first, in: known) {
            throw HarkError.usage("no job \"\(first)\" on \(session); did you mean \(suggestion)? (\(explanation))")
        }
        throw HarkError.usage(explanation)
    }

    static func invocation(_ name: String, _ arguments: [String]) -> CommandInvocation {
        CommandInvocation(name: name, arguments: arguments,
                          rawArguments: arguments.map(BuildParameters.quoted).joined(separator: " "))
    }
}

import Foundation
import Testing
import TestSupport
@testable import HarkCore

@Suite struct BuildParametersTests {
    static let job = JobDetails(path: JobPath(["deploy"]), try! JSON.parse("""
        {"property":[{"parameterDefinitions":[
          {"name":"BRANCH","type":"StringParameterDefinition","defaultParameterValue":{"value":"main"}},
          {"name":"TICKET","type":"StringParameterDefinition","defaultParameterValue":{"value":""},"description":"Change ticket"},
          {"name":"TARGET","type":"ChoiceParameterDefinition","choices":["staging","production"],"defaultParameterValue":{"value":"staging"}},
          {"name":"DRY_RUN","type":"BooleanParameterDefinition","defaultParameterValue":{"value":false}},
          {"name":"TOKEN","type":"PasswordParameterDefinition","defaultParameterValue":{"_class":"hudson.model.PasswordParameterValue","name":"TOKEN"}},
          {"name":"UPSTREAM","type":"RunParameterDefinition","defaultParameterValue":null}]}]}
        """))

    static func resolve(_ words: [String], answers: [String] = []) async throws -> (BuildParameters, ScriptedInteraction) {
        let interaction = ScriptedInteraction(answers)
        return (try await BuildParameters.resolve(words, for: job, interaction: interaction), interaction)
    }

    @Test func givenValuesAreCheckedAndMissingOnesAskedPasswordsWithoutEcho() async throws {
        let (parameters, interaction) = try await Self.resolve(["target=Production", "DRY_RUN=yes"],
                                                               answers: ["CHG-7", "s3cret", "lib#3"])
        #expect(parameters.form.map { "\($0.0)=\($0.1)" }
            == ["TICKET=CHG-7", "TARGET=production", "DRY_RUN=true", "TOKEN=s3cret", "UPSTREAM=lib#3"])
        #expect(parameters.shown == ["TICKET=CHG-7", "TARGET=production", "DRY_RUN=true", "TOKEN=***", "UPSTREAM=lib#3"])
        #expect(parameters.defaults == ["BRANCH=main"])
        #expect(interaction.questions.map(\.prompt) == ["TICKET (string: Change ticket; Enter keeps the default): ",
                                                        "TOKEN (password; Enter keeps the default): ", "UPSTREAM (run): "])
        #expect(interaction.questions.map(\.secret) == [false, true, false])
    }

    @Test func anEmptyAnswerKeepsJenkinsDefaultAndSendsNothing() async throws {
        let (parameters, _) = try await Self.resolve(["UPSTREAM=lib#3"], answers: ["", ""])
        #expect(parameters.form.map { "\($0.0)=\($0.1)" } == ["UPSTREAM=lib#3"], "TOKEN= would override the stored password")
        #expect(parameters.defaults == ["BRANCH=main", "TICKET=", "TARGET=staging", "DRY_RUN=false", "TOKEN=(default)"])
    }

    @Test func inAPipeOnlyAParameterWithoutAnyDefaultIsAUsageError() async throws {
        await #expect(throws: HarkError.usage("deploy needs UPSTREAM (run); add UPSTREAM=VALUE")) {
            _ = try await BuildParameters.resolve([], for: Self.job, interaction: NonInteractive())
        }
        let parameters = try await BuildParameters.resolve(["UPSTREAM=lib#3"], for: Self.job, interaction: NonInteractive())
        #expect(parameters.form.map(\.0) == ["UPSTREAM"], "the empty TICKET and the password are left to Jenkins")
    }

    @Test func badValuesAreExplainedInOneLine() async {
        await #expect(throws: HarkError.usage("TARGET must be one of staging, production, not \"prod\"; did you mean production?")) {
            _ = try await Self.resolve(["TARGET=prod", "TICKET=1", "TOKEN=env:HOME", "UPSTREAM=lib#1"])
        }
        await #expect(throws: HarkError.usage("TARGET must be one of staging, production, not \"stagin\"; did you mean staging?")) {
            _ = try await Self.resolve(["TARGET=stagin"])
        }
        await #expect(throws: HarkError.usage("DRY_RUN is yes or no, not \"maybe\"")) {
            _ = try await Self.resolve(["DRY_RUN=maybe"])
        }
        await #expect(throws: HarkError.usage("deploy has no parameter BRANH; did you mean BRANCH?")) {
            _ = try await Self.resolve(["BRANH=x"])
        }
        await #expect(throws: HarkError.usage("expected KEY=VALUE after the job name, got \"main\"")) {
            _ = try await Self.resolve(["main"])
        }
        await #expect(throws: HarkError.usage("BRANCH is given twice")) {
            _ = try await Self.resolve(["BRANCH=a", "branch=b"])
        }
    }

    @Test func aPasswordOnTheLineMustBeAReferenceAndNeverShows() async throws {
        do {
            _ = try await Self.resolve(["TOKEN=hunter2", "TICKET=1", "UPSTREAM=lib#1"])
            Issue.record("a literal password was accepted")
        } catch {
            #expect(error.userMessage.contains("TOKEN is a password"))
            #expect(!error.userMessage.contains("hunter2"))
        }
        setenv("HARK_TEST_DEPLOY_TOKEN", "t0ken", 1)
        let (parameters, _) = try await Self.resolve(["TOKEN=env:HARK_TEST_DEPLOY_TOKEN", "TICKET=1", "UPSTREAM=lib#1"])
        #expect(parameters.form.contains { $0 == ("TOKEN", "t0ken") })
        #expect(parameters.shown.contains("TOKEN=env:HARK_TEST_DEPLOY_TOKEN"))
        #expect(!parameters.shown.joined().contains("t0ken"))
    }

    @Test func aJobWithoutParametersTakesNone() async {
        let plain = JobDetails(path: JobPath(["app"]), .object([:]))
        await #expect(throws: HarkError.usage("app takes no parameters; /build app starts it")) {
            _ = try await BuildParameters.resolve(["X=1"], for: plain, interaction: NonInteractive())
        }
    }
}

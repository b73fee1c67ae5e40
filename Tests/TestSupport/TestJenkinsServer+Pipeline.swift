import Foundation
import HarkCore

/// What a Pipeline run answers besides its log: pipeline-stage-view's REST API and the input
/// step's actions, and the junit plugin's test report of any build.
extension TestJenkinsServer {
    /// jenkinsci/pipeline-stage-view-plugin rest-api/README.md:
    /// `GET /job/:job-name/:run-id/wfapi/describe` → `{_links, id, name, status, startTimeMillis,
    /// endTimeMillis, durationMillis, stages: [{_links, id, name, status, startTimeMillis,
    /// durationMillis}]}`, and `wfapi/pendingInputActions` → `[{id, proceedText, message, inputs,
    /// proceedUrl, abortUrl, redirectApprovalUrl}]` (PendingInputActionsExt.java;
    /// InputParameterDefExt.java: `{type, name, description, definition: {defaultVal, choices}}`).
    func answerStageView(_ build: TestJenkinsBuild, of job: TestJenkinsJob, _ action: [String], _ exchange: JenkinsExchange) {
        let runURL = contextPath + Self.jobURLPath(job.path) + "/\(build.number)/"
        switch action {
        case ["describe"]:
            let json: JSON = lock.withLock {
                let status = build.inputs.isEmpty
                    ? (build.result.map { $0 == "FAILURE" ? "FAILED" : ($0 == "NOT_BUILT" ? "NOT_EXECUTED" : $0) } ?? "IN_PROGRESS")
                    : "PAUSED_PENDING_INPUT"
                var links: [String: JSON] = ["self": ["href": .string(runURL + "wfapi/describe")]]
                if !build.inputs.isEmpty { links["pendingInputActions"] = ["href": .string(runURL + "wfapi/pendingInputActions")] }
                var start = build.timestamp
                let stages: [JSON] = build.stages.enumerated().map { index, stage in
                    defer { start += stage.durationMillis }
                    return ["_links": ["self": ["href": .string(runURL + "execution/node/\(5 + 3 * index)/wfapi/describe")]],
                            "id": .string(String(5 + 3 * index)), "name": .string(stage.name), "execNode": "",
                            "status": .string(stage.status), "startTimeMillis": .number(start),
                            "durationMillis": .number(stage.durationMillis), "pauseDurationMillis": 0]
                }
                exchange.answer.stages = build.stages.map { $0.name + ":" + $0.status }.joined(separator: ",")
                return ["_links": .object(links), "id": .string(String(build.number)), "name": .string("#\(build.number)"),
                        "status": .string(status), "startTimeMillis": .number(build.timestamp),
                        "endTimeMillis": .number(build.timestamp + build.duration), "durationMillis": .number(build.duration),
                        "queueDurationMillis": 5, "pauseDurationMillis": 0, "stages": .array(stages)]
            }
            exchange.json(json)
        case ["pendingInputActions"]:
            let json: JSON = lock.withLock {
                .array(build.inputs.map { input in
                    ["id": .string(input.id), "proceedText": .string(input.ok), "message": .string(input.message),
                     "inputs": .array(input.parameters.map { parameter in
                         var definition: [String: JSON] = [:]
                         if let value = parameter.defaultValue["value"] { definition["defaultVal"] = value }
                         if !parameter.choices.isEmpty { definition["choices"] = .array(parameter.choices.map(JSON.string)) }
                         return ["type": .string(parameter.type), "name": .string(parameter.name),
                                 "description": .string(parameter.description), "definition": .object(definition)]
                     }),
                     "proceedUrl": .string(runURL + "wfapi/inputSubmit?inputId=" + input.id),
                     "abortUrl": .string(runURL + "input/" + input.id + "/abort"), "redirectApprovalUrl": .string(runURL + "input/")]
                })
            }
            exchange.json(json)
        default:
            exchange.page(404, "Not Found")
        }
    }

    /// jenkinsci/pipeline-input-step-plugin InputStepExecution.java: `@RequirePOST doProceedEmpty()`
    /// (no parameters), `@RequirePOST doProceed(request)` reading the submitted form's
    /// `parameter` list (the `json` field), `@RequirePOST doAbort()`; each answers 200. A
    /// proceed logs "Approved by USER"; an abort fails the run with a Rejection ("Rejected
    /// by USER"), which ends the build ABORTED.
    func answerInput(_ build: TestJenkinsBuild, _ action: [String], _ exchange: JenkinsExchange) {
        guard action.count == 2, ["proceedEmpty", "proceed", "abort"].contains(action[1]) else { return exchange.page(404, "Not Found") }
        guard exchange.requirePost() else { return }
        let found: Bool = lock.withLock { build.inputs.contains { $0.id == action[0] } }
        guard found else { return exchange.page(404, "Not Found") }
        mutate { _ in
            build.inputs.removeAll { $0.id == action[0] }
            if action[1] == "abort" {
                build.log += Array("Rejected by \(Self.fullName)\nFinished: ABORTED\n".utf8)
                build.result = "ABORTED"
                build.duration = 4_200
                for index in build.stages.indices where ["PAUSED_PENDING_INPUT", "IN_PROGRESS"].contains(build.stages[index].status) {
                    build.stages[index].status = "ABORTED"
                }
            } else {
                build.inputAnswers.append(exchange.answer.form)
                build.log += Array("Approved by \(Self.fullName)\n".utf8)
                for index in build.stages.indices where build.stages[index].status == "PAUSED_PENDING_INPUT" {
                    build.stages[index].status = "IN_PROGRESS"
                }
            }
        }
        exchange.empty(200)
    }

    /// jenkinsci/junit-plugin src/main/java/hudson/tasks/junit/TestResult.java exports
    /// duration, passCount, failCount, skipCount, empty, suites; SuiteResult its cases;
    /// CaseResult className, name, status (PASSED, SKIPPED, FAILED, FIXED, REGRESSION),
    /// errorDetails… A build without a TestResultAction has no testReport URL: 404.
    func testReport(_ build: TestJenkinsBuild, _ exchange: JenkinsExchange) {
        guard let cases = lock.withLock({ build.tests }) else { return exchange.page(404, "Not Found") }
        let failed = cases.filter { ["FAILED", "REGRESSION"].contains($0.status) }.count
        let skipped = cases.filter { $0.status == "SKIPPED" }.count
        exchange.json(["_class": "hudson.tasks.junit.TestResult", "duration": 1.5, "empty": .bool(cases.isEmpty),
                       "failCount": JSON(failed), "passCount": JSON(cases.count - failed - skipped), "skipCount": JSON(skipped),
                       "suites": [["cases": .array(cases.map { testCase in
                           ["className": .string(testCase.className), "name": .string(testCase.name),
                            "status": .string(testCase.status), "errorDetails": JSON(testCase.errorDetails)]
                       })]]])
    }
}

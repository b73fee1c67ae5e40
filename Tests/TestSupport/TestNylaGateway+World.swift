import Foundation
import HarkCore

extension TestNylaGateway {
    /// The gateway's data: accounts, mandates and instances (fixed), and what changes:
    /// sessions, workflows, files, pending edits, and a record of stops and stream requests.
    final class World: @unchecked Sendable {
        struct Message {
            var id: String
            var role: String
            var text: String
            var createdAt: Date
        }

        struct Workflow {
            var id: String
            var instance: String
            var name: String
            var order: Int
            var updatedAt: Date
            var messages: [Message] = []
        }

        struct File {
            var id: String
            var instance: String
            var name: String
            var mimeType: String
            var bytes: [UInt8]
            var folder: String?
            var createdAt: Date
        }

        struct Edit {
            var id: String
            var fileID: String
            var old: String
            var new: String
            var description: String
            var status: String
            var order: Int
        }

        static let accounts: [String: (password: String, fullName: String)] = [
            "ann": ("s3cret pass", "Ann Example"), "bob": ("b0b pass", "Bob Beta"),
        ]
        /// Ann sees both mandates; Bob only Beta GmbH (and so only one chat instance).
        static let mandatesOf: [String: Set<String>] = ["ann": ["m1", "m2"], "bob": ["m2"]]
        static let tokens: [String: String] = ["tok-ann-123": "ann"]
        static let instances: [String: (feature: String, mandate: String)] = [
            "ws1": ("workspace", "m1"), "cb1": ("chatbot", "m1"), "tr1": ("trustee", "m1"), "ws2": ("workspace", "m2"),
        ]
        static let folders: [JSON] = [
            ["id": "fold-docs", "name": "docs", "parentId": nil],
            ["id": "fold-drafts", "name": "drafts", "parentId": "fold-docs"],
        ]

        static let mandates: JSON = [
            ["id": "m1", "name": "Acme AG", "code": "acme", "features": [
                ["code": "workspace", "icon": "briefcase", "label": ["de": "Arbeitsbereich", "en": "Workspace", "fr": "Espace"],
                 "instances": [["id": "ws1", "featureCode": "workspace", "mandateId": "m1", "mandateName": "Acme AG",
                                "instanceLabel": "Team workspace", "userRoles": ["user"], "permissions": ["views": [:]]]]],
                ["code": "chatbot", "icon": "chat", "label": ["de": "Chatbot", "en": "Chatbot"],
                 "instances": [["id": "cb1", "featureCode": "chatbot", "mandateId": "m1", "mandateName": "Acme AG",
                                "instanceLabel": "Support bot", "userRoles": ["user"]]]],
                ["code": "trustee", "icon": "scale", "label": ["de": "Treuhand", "en": "Trustee"],
                 "instances": [["id": "tr1", "featureCode": "trustee", "mandateId": "m1", "mandateName": "Acme AG",
                                "instanceLabel": "Books 2026", "userRoles": ["viewer"]]]],
            ]],
            ["id": "m2", "name": "Beta GmbH", "features": [
                ["code": "workspace", "icon": "briefcase", "label": ["de": "Arbeitsbereich", "en": "Workspace"],
                 "instances": [["id": "ws2", "featureCode": "workspace", "mandateId": "m2", "mandateName": "Beta GmbH",
                                "instanceLabel": "Beta research", "userRoles": ["admin"]]]],
            ]],
        ]

        static let prompts: [JSON] = [
            ["id": "p1", "name": "summarize", "content": "Summarize {{topic}} in three bullet points.",
             "description": "three bullets on a topic"],
            ["id": "p2", "name": "translate", "content": "Translate the following text into German:\nkeep the tone"],
            ["id": "p3", "name": "review", "content": "Review the attached file for mistakes."],
        ]

        private let lock = NSLock()
        var sessions: [String: (user: String, csrf: String)] = [:]
        var throttled = 0
        var retryAfter: String?
        var workflows: [String: Workflow] = [:]
        var files: [String: File] = [:]
        var edits: [String: Edit] = [:]
        var stops: [(instance: String, workflow: String)] = []
        var streamBodies: [JSON] = []
        var misplacedRefreshCookies = 0
        let clientLeft = Gate()
        private var clock = 0
        private var counter = 0

        init() {
            files["file-notes"] = File(id: "file-notes", instance: "ws1", name: "notes.md", mimeType: "text/markdown",
                                       bytes: Array("# Notes\nalpha\nbeta\ngamma\n".utf8), folder: nil,
                                       createdAt: TestNylaGateway.epoch)
            files["file-logo"] = File(id: "file-logo", instance: "ws1", name: "logo.png", mimeType: "image/png",
                                      bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D], folder: "fold-docs",
                                      createdAt: TestNylaGateway.epoch)
        }

        func locked<T>(_ body: (World) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(self)
        }

        var now: Date { TestNylaGateway.date(minute: clock) }

        /// Advances the clock a minute; returns an ever-growing order number.
        func tick() -> Int {
            clock += 1
            return clock
        }

        func nextID(_ prefix: String) -> String {
            counter += 1
            return "\(prefix)-\(counter)"
        }

        func login(user: String, csrf: String) -> String {
            let session = NylaWire.newCSRFToken() + NylaWire.newCSRFToken()
            sessions[session] = (user, csrf)
            return session
        }

        @discardableResult
        func propose(fileID: String, content: String, description: String) -> String {
            let id = nextID("edit")
            let old = files[fileID].map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
            edits[id] = Edit(id: id, fileID: fileID, old: old, new: content, description: description, status: "pending",
                             order: tick())
            return id
        }

        func workflowJSON(_ workflow: Workflow, chatbot: Bool) -> JSON {
            chatbot
                ? ["id": .string(workflow.id), "title": .string(workflow.name),
                   "updatedAt": .number(workflow.updatedAt.timeIntervalSince1970 * 1000)]
                : ["id": .string(workflow.id), "name": .string(workflow.name), "status": "idle",
                   "createdAt": .string(TimeFormat.iso8601(TestNylaGateway.epoch)),
                   "updatedAt": .string(TimeFormat.iso8601(workflow.updatedAt))]
        }

        func fileJSON(_ file: File) -> JSON {
            ["id": .string(file.id), "fileName": .string(file.name), "mimeType": .string(file.mimeType),
             "fileSize": .number(Double(file.bytes.count)), "folderId": JSON(file.folder),
             "createdAt": .string(TimeFormat.iso8601(file.createdAt))]
        }

        func editJSON(_ edit: Edit) -> JSON {
            ["id": .string(edit.id), "fileId": .string(edit.fileID), "fileName": .string(files[edit.fileID]?.name ?? "?"),
             "description": .string(edit.description), "oldContent": .string(edit.old), "newContent": .string(edit.new),
             "status": .string(edit.status), "workflowId": nil]
        }
    }
}

import Foundation
import HarkCore

/// The workspace and chatbot endpoints under `/api/{feature}/{instanceId}/`.
extension TestNylaGateway {
    static func routeFeature(_ request: TestRequest, _ response: ResponseWriter, world: World, feature: String,
                             instance: String, rest: [String], awkward: Bool, script: Script) {
        let chatbot = feature == "chatbot"
        let threadsWord = chatbot ? "threads" : "workflows"
        let body = (try? JSON.parse(request.body)) ?? .null
        switch (request.method, rest) {
        case ("POST", ["start", "stream"]):
            stream(request, response, world: world, feature: feature, instance: instance, body: body, awkward: awkward, script: script)
        case ("POST", let path) where path.count == 2 && path[0] == "stop":
            let known = world.locked { world -> Bool in
                world.stops.append((instance, path[1]))
                return world.workflows[path[1]]?.instance == instance
            }
            known ? json(response, ["status": "stopped", "workflowId": .string(path[1])]) : detail(response, 404, "Workflow not found")
        case ("GET", [threadsWord]):
            let items = world.locked { world in
                world.workflows.values.filter { $0.instance == instance }.sorted { $0.order > $1.order }
                    .map { world.workflowJSON($0, chatbot: chatbot) }
            }
            paged(request, response, items)
        case ("POST", ["workflows"]) where !chatbot:
            guard let name = validName(body, response) else { return }
            let created = world.locked { world -> JSON in
                let id = world.nextID("wf")
                let workflow = World.Workflow(id: id, instance: instance, name: name, order: world.tick(), updatedAt: world.now)
                world.workflows[id] = workflow
                return world.workflowJSON(workflow, chatbot: false)
            }
            json(response, status: 201, created)
        case ("PATCH", let path) where !chatbot && path.count == 2 && path[0] == "workflows":
            guard let name = validName(body, response) else { return }
            let renamed = world.locked { world -> JSON? in
                guard var workflow = world.workflows[path[1]], workflow.instance == instance else { return nil }
                workflow.name = name
                world.workflows[path[1]] = workflow
                return world.workflowJSON(workflow, chatbot: false)
            }
            renamed.map { json(response, $0) } ?? detail(response, 404, "Workflow not found")
        case ("DELETE", let path) where path.count == 2 && path[0] == threadsWord:
            let removed = world.locked { world -> Bool in
                guard world.workflows[path[1]]?.instance == instance else { return false }
                world.workflows[path[1]] = nil
                return true
            }
            removed ? response.send(status: 204) : detail(response, 404, chatbot ? "Thread not found" : "Workflow not found")
        case ("GET", let path) where path.count == 3 && path[0] == threadsWord && path[2] == "messages":
            let messages = world.locked { world -> [JSON]? in
                guard let workflow = world.workflows[path[1]], workflow.instance == instance else { return nil }
                return workflow.messages.map { message in
                    chatbot
                        ? ["id": .string(message.id), "role": .string(message.role), "message": .string(message.text),
                           "timestamp": .number(message.createdAt.timeIntervalSince1970 * 1000)]
                        : ["id": .string(message.id), "role": .string(message.role), "content": .string(message.text),
                           "createdAt": .string(TimeFormat.iso8601(message.createdAt))]
                }
            }
            messages.map { paged(request, response, $0) } ?? detail(response, 404, "Workflow not found")
        default:
            if chatbot { return detail(response, 404, "Not Found") }
            routeWorkspace(request, response, world: world, instance: instance, rest: rest)
        }
    }

    /// FastAPI's validation error for a missing or too long name.
    static func validName(_ body: JSON, _ response: ResponseWriter) -> String? {
        guard let name = body["name"]?.string, !name.isEmpty else {
            json(response, status: 422, ["detail": [["loc": ["body", "name"], "msg": "field required", "type": "value_error.missing"]]])
            return nil
        }
        guard name.count <= 100 else {
            json(response, status: 422, ["detail": [["loc": ["body", "name"], "msg": "ensure this value has at most 100 characters",
                                             "type": "value_error.any_str.max_length"]]])
            return nil
        }
        return name
    }

    static func routeWorkspace(_ request: TestRequest, _ response: ResponseWriter, world: World, instance: String, rest: [String]) {
        switch (request.method, rest) {
        case ("GET", ["folders"]):
            json(response, .array(World.folders))
        case ("GET", ["files"]):
            let folder = request.query["folderId"]
            let files = world.locked { world in
                world.files.values.filter { $0.instance == instance && (folder == nil || $0.folder == folder) }
                    .sorted { $0.id < $1.id }.map { world.fileJSON($0) }
            }
            paged(request, response, files)
        case ("POST", ["files", "upload"]):
            guard let parts = Multipart.parse(request.body, contentType: request.header("content-type") ?? ""),
                  let file = parts.first(where: { $0.name == "file" }), let name = file.filename else {
                return json(response, status: 422, ["detail": [["loc": ["body", "file"], "msg": "field required",
                                                        "type": "value_error.missing"]]])
            }
            let folder = parts.first { $0.name == "folderId" }.map { String(decoding: $0.data, as: UTF8.self) }
            let created = world.locked { world -> JSON in
                let id = world.nextID("file")
                _ = world.tick()
                let stored = World.File(id: id, instance: instance, name: name, mimeType: file.contentType ?? "application/octet-stream",
                                        bytes: file.data, folder: folder, createdAt: world.now)
                world.files[id] = stored
                return world.fileJSON(stored)
            }
            json(response, status: 201, created)
        case ("GET", let path) where path.count >= 2 && path[0] == "files":
            guard let file = world.locked({ $0.files[path[1]] }), file.instance == instance else {
                return detail(response, 404, "File not found")
            }
            if path.count == 3, path[2] == "content" {
                response.send(headers: [("Content-Type", file.mimeType),
                                        ("Content-Disposition", "attachment; filename=\"\(file.name)\"")], body: file.bytes)
            } else {
                json(response, world.locked { $0.fileJSON(file) })
            }
        case ("GET", ["pending-edits"]):
            let edits = world.locked { world in
                world.edits.values.filter { $0.status == "pending" && world.files[$0.fileID]?.instance == instance }
                    .sorted { $0.order < $1.order }.map { world.editJSON($0) }
            }
            paged(request, response, edits)
        case ("POST", let path) where path.count == 2 && path[0] == "pending-edits" && path[1].hasSuffix("-all"):
            let accept = path[1] == "accept-all"
            let count = world.locked { world -> Int in
                // In the order they were proposed, as the agent meant them to apply.
                let pending = world.edits.values.filter { $0.status == "pending" && world.files[$0.fileID]?.instance == instance }
                    .sorted { $0.order < $1.order }
                for edit in pending { decide(edit.id, accept: accept, world: world) }
                return pending.count
            }
            json(response, [accept ? "accepted" : "rejected": .number(Double(count))])
        case ("POST", let path) where path.count == 3 && path[0] == "pending-edits" && ["accept", "reject"].contains(path[2]):
            let decided = world.locked { world -> Bool in
                guard world.edits[path[1]]?.status == "pending" else { return false }
                decide(path[1], accept: path[2] == "accept", world: world)
                return true
            }
            decided ? json(response, ["id": .string(path[1]), "status": .string(path[2] == "accept" ? "accepted" : "rejected")])
                    : detail(response, 404, "Pending edit not found")
        default:
            detail(response, 404, "Not Found")
        }
    }

    /// Accepting writes the new content into the file; rejecting leaves it.
    static func decide(_ id: String, accept: Bool, world: World) {
        guard var edit = world.edits[id] else { return }
        edit.status = accept ? "accepted" : "rejected"
        world.edits[id] = edit
        if accept { world.files[edit.fileID]?.bytes = Array(edit.new.utf8) }
    }

    // MARK: The chat stream

    static func stream(_ request: TestRequest, _ response: ResponseWriter, world: World, feature: String, instance: String,
                       body: JSON, awkward: Bool, script: Script) {
        guard let prompt = body["prompt"]?.string, !prompt.isEmpty else {
            return json(response, status: 422, ["detail": [["loc": ["body", "prompt"], "msg": "field required", "type": "value_error.missing"]]])
        }
        let requested = body["workflowId"]?.string
        let opened = world.locked { world -> (id: String, isNew: Bool, name: String)? in
            world.streamBodies.append(body)
            if let requested {
                guard world.workflows[requested]?.instance == instance else { return nil }
                world.workflows[requested]!.messages.append(World.Message(id: world.nextID("m"), role: "user", text: prompt,
                                                                          createdAt: world.now))
                return (requested, false, world.workflows[requested]!.name)
            }
            let id = world.nextID(feature == "chatbot" ? "th" : "wf")
            let name = "Chat: " + String(prompt.prefix(30))
            var workflow = World.Workflow(id: id, instance: instance, name: name, order: world.tick(), updatedAt: world.now)
            workflow.messages.append(World.Message(id: world.nextID("m"), role: "user", text: prompt, createdAt: world.now))
            world.workflows[id] = workflow
            return (id, true, name)
        }
        guard let opened else { return detail(response, 404, "Workflow not found") }
        let steps = script(StreamRequest(feature: feature, instance: instance, workflowID: opened.id, prompt: prompt, body: body))
        if case .json(let answer)? = steps.first { return json(response, answer) }
        let out = SSEWriter(response: response, awkward: awkward)
        response.startChunked(headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
        if opened.isNew {
            out.event(["type": "workflowUpdated", "workflow": ["id": .string(opened.id), "name": .string(opened.name), "status": "running"]])
        }
        out.event(["type": "message", "workflowId": .string(opened.id),
                   "message": ["id": "echo", "role": "user", "content": .string(prompt)]])
        var reply = ""
        for step in steps {
            // As the real gateway's FastAPI (Starlette) does: encode/starlette,
            // starlette/responses.py, StreamingResponse.__call__ runs `stream_response` beside
            // `listen_for_disconnect`, which waits for `{"type": "http.disconnect"}`; whichever
            // ends first cancels the other, so a client that goes stops the reply's generator.
            if response.clientGone { return world.clientLeft.open() }
            switch step {
            case .chunk(let text):
                reply += text
                out.event(["type": "chunk", "content": .string(text)])
            case .event(let json):
                out.event(json)
            case .typed(let type, let json):
                out.write("event: \(type)\ndata: \(json.encoded())\n\n")
            case .raw(let text):
                out.write(text)
            case .wait(let gate):
                gate.wait()
            case .probe(let probe):
                probe()
            case .proposeEdit(let fileID, let content, let description):
                world.locked { _ = $0.propose(fileID: fileID, content: content, description: description) }
            case .createFile(let name, let content):
                let file = world.locked { world -> JSON in
                    let id = world.nextID("file")
                    let stored = World.File(id: id, instance: instance, name: name, mimeType: "text/markdown",
                                            bytes: Array(content.utf8), folder: nil, createdAt: world.now)
                    world.files[id] = stored
                    return world.fileJSON(stored)
                }
                out.event(["type": "fileCreated", "workflowId": .string(opened.id), "file": file])
            case .complete:
                let messageID = world.locked { world -> String in
                    let id = world.nextID("m")
                    _ = world.tick()
                    world.workflows[opened.id]?.messages.append(World.Message(id: id, role: "assistant", text: reply,
                                                                              createdAt: world.now))
                    world.workflows[opened.id]?.updatedAt = world.now
                    return id
                }
                out.event(["type": "complete", "workflowId": .string(opened.id), "messageId": .string(messageID)])
            case .stopped:
                out.event(["type": "stopped", "workflowId": .string(opened.id)])
            case .error(let message):
                out.event(["type": "error", "message": .string(message)])
            case .close:
                response.abort()
                return
            case .json:
                break
            }
        }
    }

    /// Writes SSE text; when awkward, in 1–7 byte HTTP chunks with CRLF line ends.
    final class SSEWriter {
        let response: ResponseWriter
        let awkward: Bool
        private var cut = 0

        init(response: ResponseWriter, awkward: Bool) {
            self.response = response
            self.awkward = awkward
        }

        func event(_ json: JSON) { write("data: " + json.encoded() + "\n\n") }

        func write(_ text: String) {
            guard awkward else {
                response.write(text)
                return
            }
            let bytes = Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)
            var start = 0
            while start < bytes.count {
                let sizes = [1, 2, 5, 3, 7, 4]
                let end = min(bytes.count, start + sizes[cut % sizes.count])
                cut += 1
                response.write(Array(bytes[start..<end]))
                start = end
            }
        }
    }
}

/// `multipart/form-data` bodies as curl sends them.
enum Multipart {
    struct Part {
        var name: String
        var filename: String?
        var contentType: String?
        var data: [UInt8]
    }

    static func parse(_ body: [UInt8], contentType: String) -> [Part]? {
        guard let range = contentType.range(of: "boundary=") else { return nil }
        let boundary = Array(("--" + contentType[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\""))).utf8)
        var parts: [Part] = []
        var positions: [Int] = []
        var index = 0
        while index + boundary.count <= body.count {
            if Array(body[index..<index + boundary.count]) == boundary {
                positions.append(index)
                index += boundary.count
            } else {
                index += 1
            }
        }
        for (start, end) in zip(positions, positions.dropFirst()) {
            var section = Array(body[(start + boundary.count)..<end])
            if section.starts(with: [0x0D, 0x0A]) { section.removeFirst(2) }
            if section.count >= 2, section.suffix(2) == [0x0D, 0x0A] { section.removeLast(2) }
            guard let split = find([0x0D, 0x0A, 0x0D, 0x0A], in: section) else { continue }
            let headers = String(decoding: section[..<split], as: UTF8.self)
            var part = Part(name: "", filename: nil, contentType: nil, data: Array(section[(split + 4)...]))
            for line in headers.components(separatedBy: "\r\n") {
                let lowered = line.lowercased()
                if lowered.hasPrefix("content-disposition:") {
                    part.name = value(of: "name", in: line) ?? ""
                    part.filename = value(of: "filename", in: line)
                } else if lowered.hasPrefix("content-type:") {
                    part.contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
                }
            }
            parts.append(part)
        }
        return parts
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where Array(haystack[index..<index + needle.count]) == needle {
            return index
        }
        return nil
    }

    static func value(of key: String, in header: String) -> String? {
        guard let range = header.range(of: " \(key)=\"") ?? header.range(of: ";\(key)=\"") else { return nil }
        let rest = header[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}

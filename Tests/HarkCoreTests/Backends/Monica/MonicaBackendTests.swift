import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Golden transcripts of a monica session against a loopback Monica, then the rows stored and
/// the requests the server saw. The clock is a TestClock: retries and Retry-After waits are
/// recorded, not slept.
@Suite struct MonicaBackendTests {
    static func config(_ url: String, token: String = TestMonicaServer.token, extra: String = "") -> String {
        "[session crm]\nkind = monica\nurl = \(url)\nauth = bearer:\(token)\n\(extra)\n"
    }

    /// A workspace in the crm session, on a fake clock.
    static func open(_ server: TestMonicaServer, clock: TestClock = TestClock(), extra: String = "",
                     token: String = TestMonicaServer.token) throws -> Transcript {
        let home = TestHome(config: config(server.baseURL, token: token, extra: extra))
        let workspace = try home.workspace(clock: clock.clock)
        try workspace.switchSession(to: "crm")
        return Transcript(workspace)
    }

    /// A name search's rows carry no job or company (Monica selects few columns for it), so
    /// its table has no such column; a field search's rows are whole.
    @Test func aTypedSearchShowsATableAndGoesIntoTheHistory() async throws {
        let server = try TestMonicaServer()
        let transcript = try Self.open(server)
        await transcript.type("jo")
        await transcript.type("email:jo")
        #expect(transcript.text == """
            > jo
            contacts matching "jo"
            id  name          nickname  tags
            1   John Doe      Johnny    friends, work
            2   Joanna Smith  Jo        work
            3   Jorge Ruiz              climbing
            4   Mary Jones    Mo        family
            4 contacts
            > email:jo
            contacts matching "email:jo"
            id  name          nickname  company / job      tags
            1   John Doe      Johnny    Acme · Engineer    friends, work
            2   Joanna Smith  Jo        Globex · Designer  work
            3   Jorge Ruiz                                 climbing
            3 contacts

            """)
        let requests = server.apiRequests
        #expect(requests.map(\.path) == ["/api/contacts", "/api/contacts"])
        #expect(requests.map { $0.query["query"] } == ["jo", "email:jo"])
        #expect(requests[1].target.contains("query=email%3Ajo"), "the colon is encoded, so Monica gets it as typed")
        #expect(requests.allSatisfy { $0.method == "GET" && $0.header("accept") == "application/json" })
        #expect(requests.allSatisfy { $0.header("authorization") == "Bearer " + TestMonicaServer.token })
        #expect(requests[0].query["limit"] == "15" && requests[0].query["page"] == "1")

        let store = transcript.workspace.store
        let thread = try #require(try store.currentThread(session: "crm"))
        let messages = try store.messages(threadID: thread.id)
        #expect(messages.map(\.role) == [.user, .assistant, .user, .assistant])
        #expect(messages.map(\.status) == [.complete, .complete, .complete, .complete])
        #expect(messages[0].text == "jo")
        #expect(messages[1].text.hasPrefix("contacts matching \"jo\"\nid  name"))
        #expect(messages[1].text.hasSuffix("\n4 contacts\n"), "a table ends its last line, in a pipe too")

        // Later, with Monica gone, the history still finds the contact.
        server.http.stop()
        let found = await transcript.type("/search Johnny")
        #expect(found.contains("John Doe"))
        #expect(server.apiRequests.count == 2)
    }

    @Test func aListPagesFifteenAtATimeAndMoreLoadsTheNext() async throws {
        let server = try TestMonicaServer()
        let transcript = try Self.open(server)
        let first = await transcript.type("/contacts")
        #expect(first.hasPrefix("> /contacts\nall contacts\nid  name          nickname  company / job      tags\n1   John Doe"))
        #expect(first.hasSuffix("15  Pat Filler15\n15 of 40 contacts · /more for the next page\n"))
        let second = await transcript.type("/more")
        #expect(second.hasPrefix("> /more\nall contacts, page 2 of 3\nid  name          nickname  tags\n16  Pat Filler16\n"))
        #expect(second.hasSuffix("\n30  Pat Filler30\n30 of 40 contacts · /more for the next page\n"))
        let third = await transcript.type("/more")
        #expect(third.hasSuffix("\n40  Pat Filler40\n40 of 40 contacts\n"))
        #expect(await transcript.type("/more") == "> /more\nthat was the last page (40 of 40 contacts)\n")
        #expect(server.apiRequests.map { $0.query["page"] } == ["1", "2", "3"])
        // Each page is a reply to the command that asked for it.
        let thread = try #require(try transcript.workspace.store.currentThread(session: "crm"))
        let messages = try transcript.workspace.store.messages(threadID: thread.id)
        #expect(messages.filter { $0.role == .user }.map(\.text) == ["/contacts", "/more", "/more"])
    }

    @Test func moreWithNothingToContinueSaysWhatToDo() async throws {
        let server = try TestMonicaServer()
        let transcript = try Self.open(server)
        #expect(await transcript.type("/more") == "> /more\nhark: nothing to continue: search for a contact first (type a name)\n")
        #expect(server.apiRequests.isEmpty)
    }

    @Test func theCardShowsFieldsTagsDatesAndTheLatestNotes() async throws {
        let server = try TestMonicaServer()
        let transcript = try Self.open(server)
        let card = await transcript.type("/contact 1")
        #expect(card == """
            > /contact 1
            John Doe "Johnny" · #1 ★
            Engineer at Acme
            Met climbing; loves hiking.

            email      john@example.com
            phone      +1 555 0100
            twitter    @johnd
            address    Home: 1 Main St, Springfield, 12345, United States
            tags       friends, work
            birthday   1985-03-14 (40)
            met        2019-05-01 · at the climbing gym
            last call  2025-01-05
            last seen  2025-01-10
            in monica  added 2024-01-02 · updated 2025-02-03
            has        5 notes · 2 activities · 2 tasks · 1 gift

            latest notes (3 of 5; /notes 1 lists all)
            2025-01-25 ★  Ask about the trip to Norway.
                          He wants maps.
            2025-01-20    Note 4 on John
            2025-01-15    Note 3 on John

            """)
        let other = await transcript.type("/contact #3")
        #expect(other == """
            > /contact #3
            Jorge Ruiz · #3

            email      jorge@example.org
            tags       climbing
            birthday   July 4 (year unknown)
            in monica  added 2024-01-02 · updated 2024-01-02

            """)
        // The notes came with the contact: one request per card.
        #expect(server.apiRequests.map(\.target) == ["/api/contacts/1?with=contactfields", "/api/contacts/3?with=contactfields"])
        let reply = try #require(try transcript.workspace.store.lastMessage(session: "crm", role: .assistant))
        #expect(reply.text.hasPrefix("Jorge Ruiz · #3"))
    }

    @Test func aServerThatSendsNoNotesWithTheContactIsAskedForThem() async throws {
        var data = TestMonicaData.standard
        data.notesWithContact = false
        let server = try TestMonicaServer(data: data)
        let transcript = try Self.open(server)
        let card = await transcript.type("/contact 1")
        #expect(card.hasSuffix("latest notes (3 of 5; /notes 1 lists all)\n2025-01-25 ★  Ask about the trip to Norway.\n"
            + "              He wants maps.\n2025-01-20    Note 4 on John\n2025-01-15    Note 3 on John\n"))
        #expect(server.apiRequests.map(\.target) == ["/api/contacts/1?with=contactfields",
                                                    "/api/contacts/1/notes?sort=-created_at&page=1&limit=3"])
        await transcript.type("/contact 3")
        #expect(server.apiRequests.count == 3, "no notes to ask for when the statistics say there are none")
    }

    @Test func theContactOrderAndPageSizeAreTheSessions() async throws {
        let server = try TestMonicaServer()
        let transcript = try Self.open(server, extra: "sort = -updated_at\npage_size = 20")
        let output = await transcript.type("/contacts")
        #expect(output.hasSuffix("\n20 of 40 contacts · /more for the next page\n"))
        #expect(server.apiRequests.first?.target == "/api/contacts?sort=-updated_at&page=1&limit=20")
    }

    @Test func notesActivitiesTasksGiftsAndTags() async throws {
        let server = try TestMonicaServer()
        let transcript = try Self.open(server)
        await transcript.type("/notes 1")
        await transcript.type("/activities 1")
        await transcript.type("/tasks 1")
        await transcript.type("/gifts 1")
        await transcript.type("/tags")
        await transcript.type("/tag Work")
        await transcript.type("/tag wrk")
        #expect(transcript.text == """
            > /notes 1
            notes on John Doe (#1)
            2025-01-25 ★  Ask about the trip to Norway.
                          He wants maps.
            2025-01-20    Note 4 on John
            2025-01-15    Note 3 on John
            2025-01-10    Note 2 on John
            2025-01-05    Note 1 on John
            5 notes
            > /activities 1
            activities with John Doe (#1)
            2025-01-10  Dinner at Luigi's (restaurant) · with Joanna Smith
            2024-12-01  Climbing session (sport)
            2 activities
            > /tasks 1
            tasks about John Doe (#1)
            [ ]  Send the hiking map · added 2025-01-01
            [x]  Call about the job · done 2025-01-03
            2 tasks
            > /gifts 1
            gifts for John Doe (#1)
            idea      Dune (paperback) · $12.00
            1 gift
            > /tags
            tags
            id  name
            1   friends
            2   work
            3   climbing
            4   family
            4 tags
            > /tag Work
            contacts tagged work
            id  name          nickname  company / job      tags
            1   John Doe      Johnny    Acme · Engineer    friends, work
            2   Joanna Smith  Jo        Globex · Designer  work
            2 contacts
            > /tag wrk
            hark: no tag named "wrk"; did you mean work?

            """)
        #expect(server.apiRequests.first?.query["sort"] == "-created_at", "notes come newest first")
        // /tag found the tag in /tags' cached answer: no second request for the list.
        #expect(server.apiRequests.map(\.path) == ["/api/contacts/1/notes", "/api/contacts/1/activities",
                                                   "/api/contacts/1/tasks", "/api/contacts/1/gifts", "/api/tags",
                                                   "/api/tags/2/contacts"])
        #expect(transcript.workspace.backendCompletions("tags") == ["climbing", "family", "friends", "work"])
        #expect(transcript.workspace.backendCompletions("contacts") == ["1", "2"])
    }

    @Test func aBadIdIsAUsageErrorAndAnUnknownOneSaysSo() async throws {
        let server = try TestMonicaServer()
        let transcript = try Self.open(server)
        #expect(await transcript.type("/notes john")
            == "> /notes john\nhark: /notes needs a contact's id, e.g. /notes 12; type a name to search for it\n")
        #expect(server.apiRequests.isEmpty)
        let port = server.http.port
        #expect(await transcript.type("/contact 99")
            == "> /contact 99\nhark: 127.0.0.1:\(port) has no contact #99; search by name to find the id\n")
        #expect(await transcript.type("/tasks 99")
            == "> /tasks 99\nhark: 127.0.0.1:\(port) has no contact #99; search by name to find the id\n")
        #expect(server.apiRequests.count == 2, "a 404 is an answer, not retried")
    }

    @Test func answersAreCachedForFiveMinutesAndRefreshForgetsThem() async throws {
        let server = try TestMonicaServer()
        let clock = TestClock()
        let transcript = try Self.open(server, clock: clock)
        await transcript.type("jo")
        await transcript.type("jo")
        #expect(server.apiRequests.count == 1)
        clock.advance(by: 299)
        await transcript.type("jo")
        #expect(server.apiRequests.count == 1)
        clock.advance(by: 2)
        await transcript.type("jo")
        #expect(server.apiRequests.count == 2, "five minutes on, Monica is asked again")
        #expect(await transcript.type("/refresh") == "> /refresh\nforgot 1 cached answer; the next requests go to Monica\n")
        await transcript.type("jo")
        #expect(server.apiRequests.count == 3)
        let replies = try transcript.workspace.store.messages(threadID: try #require(try transcript.workspace.currentThread()).id)
            .filter { $0.role == .assistant }
        #expect(replies.count == 5 && Set(replies.map(\.text)).count == 1, "a cached answer is recorded like a fresh one")
    }

    @Test func theCacheCanBeTurnedOff() async throws {
        let server = try TestMonicaServer()
        let transcript = try Self.open(server, extra: "cache = 0")
        await transcript.type("jo")
        await transcript.type("jo")
        #expect(server.apiRequests.count == 2)
        #expect(await transcript.type("/refresh") == "> /refresh\nthe cache is off (cache = 0)\n")
    }

    @Test func aWrongTokenSaysSoAndIsNotRetried() async throws {
        let server = try TestMonicaServer()
        let transcript = try Self.open(server, token: "expired-t0ken")
        let output = await transcript.type("jo")
        #expect(output == "> jo\nhark: 127.0.0.1:\(server.http.port) refused the credentials (HTTP 401): "
            + "the API token is wrong or has expired; check the session's auth\n")
        #expect(server.apiRequests.count == 1)
        #expect(!transcript.text.contains("expired-t0ken"))
        let reply = try #require(try transcript.workspace.store.lastMessage(session: "crm", role: .assistant))
        #expect(reply.status == .failed)
        #expect(reply.error?.contains("HTTP 401") == true)
        #expect(reply.error?.contains("expired-t0ken") == false)
    }

    /// Monica counts a view of a contact whenever its card is opened; searches and lists do
    /// not. hark opens a card only on /contact, and a repeated one comes from the cache.
    @Test func onlyOpeningACardCountsAView() async throws {
        let server = try TestMonicaServer()
        let transcript = try Self.open(server)
        for line in ["jo", "email:jo", "/contacts", "/tag work", "/notes 1"] { await transcript.type(line) }
        #expect((1...4).allSatisfy { server.views(of: $0) == 0 })
        await transcript.type("/contact 1")
        await transcript.type("/contact 1")
        #expect(server.views(of: 1) == 1)
    }

    @Test func infoChecksTheTokenAgainstMe() async throws {
        let server = try TestMonicaServer()
        let transcript = try Self.open(server)
        let info = await transcript.type("/info")
        #expect(info.contains("\napi      \(server.baseURL)/api\n"))
        #expect(info.contains("\ntoken    valid, for Ann Admin <ann@example.com>\n"))
        #expect(info.contains("\ncache    0 answers, each kept 5 min; /refresh forgets them\n"))
        #expect(info.contains("\nauth     bearer:(literal)\n"))
        #expect(!info.contains(TestMonicaServer.token))
        #expect(server.apiRequests.map(\.path) == ["/api/me"])
        await transcript.type("/info")
        #expect(server.apiRequests.count == 2, "each /info asks afresh")

        let refused = try Self.open(server, token: "nope")
        let wrong = await refused.type("/info")
        #expect(wrong.contains("\ntoken    127.0.0.1:\(server.http.port) refused the credentials (HTTP 401): "
            + "the API token is wrong or has expired; check the session's auth\n"))
    }

    @Test func withoutAcceptJSONMonicaRedirectsToItsLoginPage() async throws {
        // The behaviour hark's Accept header avoids, shown on the test server itself.
        let server = try TestMonicaServer()
        let http = HTTPClient()
        let browser = try await http.fetch(HTTPRequest(url: server.baseURL + "/api/contacts"))
        #expect(browser.status == 302)
        #expect(browser.head.header("location") == server.baseURL + "/login")
        let api = try await http.fetch(HTTPRequest(url: server.baseURL + "/api/contacts", headers: [("Accept", "application/json")]))
        #expect(api.status == 401)
        #expect(try api.json() == ["message": "Unauthenticated."])
    }

    @Test func aRedirectToALoginPageIsExplained() async throws {
        // A single sign-on proxy in front of Monica sends every request to its login page.
        let proxy = try TestHTTPServer { _, response in
            response.send(status: 302, headers: [("Location", "https://sso.example.com/login?next=%2Fapi")], text: "")
        }
        let home = TestHome(config: Self.config(proxy.baseURL))
        let workspace = try home.workspace(clock: TestClock().clock)
        let output = await Transcript(workspace).type("@crm jo")
        #expect(output == "> @crm jo\ncrm ›\nhark: 127.0.0.1:\(proxy.port) redirected to its login page "
            + "(https://sso.example.com/login) instead of answering the API; check that the session's url is "
            + "Monica's address and that nothing in front of it asks for a login\n")
        #expect(proxy.requests.count == 1)
    }

    @Test func aPageThatIsNotMonicaSaysToCheckTheURL() async throws {
        let other = try TestHTTPServer { _, response in
            response.send(status: 200, headers: [("Content-Type", "text/html")], text: "<html><head><title>Welcome to nginx!</title></head></html>")
        }
        let home = TestHome(config: Self.config(other.baseURL))
        let output = await Transcript(try home.workspace(clock: TestClock().clock)).type("@crm jo")
        #expect(output.hasSuffix("hark: 127.0.0.1:\(other.port) did not answer like Monica's API (Welcome to nginx!); "
            + "the session's url should be Monica's address, e.g. https://monica.example.com\n"))
    }

    @Test func aRateLimitWaitsWhatRetryAfterAsksAndSaysSo() async throws {
        let server = try TestMonicaServer()
        server.inject([.rateLimited(retryAfter: "2")])
        let clock = TestClock()
        let transcript = try Self.open(server, clock: clock)
        let output = await transcript.type("/contact 4")
        #expect(output == """
            > /contact 4
            · rate limited; retrying in 2s
            Mary Jones "Mo" · #4

            tags       family
            in monica  added 2024-01-02 · updated 2024-01-02

            """)
        #expect(server.apiRequests.count == 2)
        #expect(clock.sleeps == [2])
        let reply = try #require(try transcript.workspace.store.lastMessage(session: "crm", role: .assistant))
        #expect(reply.text.hasPrefix("Mary Jones"), "the status line is shown, not stored")
    }

    @Test func aRetryAfterLongerThanMaxWaitFailsAtOnceWithTheTime() async throws {
        let server = try TestMonicaServer()
        server.inject([.rateLimited(retryAfter: "600")])
        let clock = TestClock()
        let transcript = try Self.open(server, clock: clock)
        #expect(await transcript.type("jo") == "> jo\nhark: 127.0.0.1:\(server.http.port) answered HTTP 429: "
            + "Too many attempts, please slow down the request. (Monica error 34); "
            + "Monica asks to wait 600s, more than max_wait (60s): try again then\n")
        #expect(server.apiRequests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func aRateLimitThatLastsGivesUpAfterThreeTries() async throws {
        let server = try TestMonicaServer()
        server.inject([.rateLimited(retryAfter: "5"), .rateLimited(retryAfter: nil), .rateLimited(retryAfter: "5")])
        let clock = TestClock()
        let transcript = try Self.open(server, clock: clock)
        #expect(await transcript.type("jo") == """
            > jo
            · rate limited; retrying in 5s
            · rate limited; retrying in 2s
            hark: 127.0.0.1:\(server.http.port) answered HTTP 429: Too many attempts, please slow down the request. \
            (Monica error 34); still rate limited after 3 tries: wait a minute

            """)
        #expect(server.apiRequests.count == 3)
        #expect(clock.sleeps == [5, 2], "without Retry-After, the backoff")
    }

    @Test func serverErrorsRetryWithBackoffThenSayWhatFailed() async throws {
        let server = try TestMonicaServer()
        server.inject([.serverError(503), .serverError(502), .serverError(500)])
        let clock = TestClock()
        let transcript = try Self.open(server, clock: clock)
        let port = server.http.port
        #expect(await transcript.type("jo") == """
            > jo
            · 127.0.0.1:\(port) answered HTTP 503; retrying in 1s (try 2 of 3)
            · 127.0.0.1:\(port) answered HTTP 502; retrying in 2s (try 3 of 3)
            hark: 127.0.0.1:\(port) answered HTTP 500: 500 Server Error; gave up after 3 tries

            """)
        #expect(server.apiRequests.count == 3)
        #expect(clock.sleeps == [1, 2])
    }

    @Test func oneServerErrorIsRiddenOut() async throws {
        let server = try TestMonicaServer()
        server.inject([.serverError(502)])
        let clock = TestClock()
        let transcript = try Self.open(server, clock: clock, extra: "retry_delay = 0.5")
        let output = await transcript.type("email:jorge")
        #expect(output.hasPrefix("> email:jorge\n· 127.0.0.1:\(server.http.port) answered HTTP 502; retrying in 0.5s (try 2 of 3)\n"
            + "contacts matching \"email:jorge\"\n"))
        #expect(output.hasSuffix("3   Jorge Ruiz            climbing\n1 contact\n"))
        #expect(server.apiRequests.count == 2)
        #expect(clock.sleeps == [0.5])
    }

    @Test func monicasOwnErrorsAreShownAndNotRetried() async throws {
        let server = try TestMonicaServer()
        server.inject([.invalidQuery, .validation(["The page must be at least 1.", "The limit must be an integer"])])
        let transcript = try Self.open(server)
        let port = server.http.port
        #expect(await transcript.type("jo") == "> jo\nhark: 127.0.0.1:\(port) answered HTTP 500: Invalid query. (Monica error 40)\n")
        #expect(await transcript.type("jo") == "> jo\nhark: 127.0.0.1:\(port) answered HTTP 422: "
            + "The page must be at least 1. The limit must be an integer. (Monica error 32)\n")
        #expect(server.apiRequests.count == 2)
    }

    @Test func networkErrorsRetryThenSayWhatFailed() async throws {
        let refusing = try RefusingPort()
        let clock = TestClock()
        let home = TestHome(config: Self.config(refusing.baseURL))
        let workspace = try home.workspace(clock: clock.clock)
        try workspace.switchSession(to: "crm")
        let host = "127.0.0.1:\(refusing.port)"
        #expect(await Transcript(workspace).type("jo") == """
            > jo
            · cannot reach \(host): connection refused; retrying in 1s (try 2 of 3)
            · cannot reach \(host): connection refused; retrying in 2s (try 3 of 3)
            hark: cannot reach \(host): connection refused; gave up after 3 tries

            """)
        #expect(clock.sleeps == [1, 2])
        let reply = try #require(try workspace.store.lastMessage(session: "crm", role: .assistant))
        #expect(reply.status == .failed)
    }

    @Test func stoppingDuringARetryWaitEndsAtOnce() async throws {
        let server = try TestMonicaServer()
        server.inject([.rateLimited(retryAfter: "50")])
        // The real clock: the wait would be 50 seconds if stopping did not cut it short.
        let home = TestHome(config: Self.config(server.baseURL))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "crm")
        let transcript = Transcript(workspace)
        let output = await transcript.type("jo") { job in
            while server.apiRequests.isEmpty { await Task.yield() }
            await transcript.press(.ctrlC)
        }
        // Nothing had arrived when Ctrl-C came: the end says so.
        #expect(output.hasSuffix("(stopped before any reply arrived)\n"))
        // One request: had the stop not cut the 50 s wait short, the retry would have made a
        // second (a timed bound here failed on a loaded machine, where the stop itself waited).
        #expect(server.apiRequests.count == 1)
    }

    @Test func aSessionAddedFromTheShellWorks() async throws {
        let server = try TestMonicaServer()
        setenv("HARK_TEST_MONICA_TOKEN", TestMonicaServer.token, 1)
        let home = TestHome(config: "")
        let transcript = Transcript(try home.workspace(clock: TestClock().clock))
        let added = await transcript.type("/session add crm --kind monica --url \(server.baseURL) --auth bearer:env:HARK_TEST_MONICA_TOKEN")
        #expect(added == "> /session add crm --kind monica --url \(server.baseURL) --auth bearer:env:HARK_TEST_MONICA_TOKEN\n"
            + "added session crm (monica); /session crm switches to it\n")
        await transcript.type("/session crm")
        #expect(await transcript.type("/contact 4").contains("Mary Jones \"Mo\" · #4"))
        let config = try String(contentsOfFile: home.paths.configFile, encoding: .utf8)
        #expect(config.contains("auth = bearer:env:HARK_TEST_MONICA_TOKEN"))
        #expect(!config.contains(TestMonicaServer.token))
    }

    @Test func badSettingsAreRefusedWithWhatToWrite() async throws {
        // A value of the wrong type is found when the config loads, with its line.
        let home = TestHome(config: Self.config("https://crm.example.com", extra: "page_size = 500"))
        #expect { try home.workspace() } throws: { error in
            error.userMessage.hasSuffix(": session crm: page_size must be a whole number from 1 to 100, not \"500\"")
        }
        let noScheme = TestHome(config: Self.config("crm.example.com"))
        #expect(await Transcript(try noScheme.workspace()).type("@crm jo")
            == "> @crm jo\nhark: session crm: url must be Monica's address, e.g. https://monica.example.com\n")
    }
}

extension Workspace {
    /// What Tab would offer for `.dynamic(key)` in the current session.
    func backendCompletions(_ key: String) -> [String] {
        (try? backend(for: currentSession))?.completions(for: key) ?? []
    }
}

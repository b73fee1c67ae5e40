/// Who sees a reply's events, as a state machine with no locks and no I/O: each transition
/// returns the observer calls it calls for, which `ReplyJob` makes outside its lock, in
/// order. Tested without a network (ReplyDeliveryTests).
struct ReplyDelivery {
    enum State {
        /// Running, and nobody has decided yet whether to watch: events wait here, so a
        /// watcher that attaches just after the reply started misses nothing.
        case undecided([ReplyEvent])
        case watched(ReplyObserver)
        /// Detached: it runs on in the background.
        case unwatched
        /// Ended. `unclaimed` holds what arrived for a watcher that was still expected (the
        /// reply ended before anyone decided).
        case ended(ReplyOutcome, unclaimed: [ReplyEvent]?)
    }

    enum Action {
        case event(ReplyObserver, ReplyEvent)
        case end(ReplyObserver, ReplyOutcome)
    }

    private(set) var state = State.undecided([])

    var outcome: ReplyOutcome? {
        if case .ended(let outcome, _) = state { return outcome }
        return nil
    }

    /// An event arrived (already stored). At most one call: the hot path of a fast stream
    /// allocates nothing for it.
    mutating func received(_ event: ReplyEvent) -> Action? {
        switch state {
        case .undecided(var events):
            state = .unwatched  // the array is not copied while it grows
            events.append(event)
            state = .undecided(events)
            return nil
        case .watched(let observer):
            return .event(observer, event)
        case .unwatched, .ended:
            return nil
        }
    }

    /// Someone watches from now on: first what arrived before, and the end if it came.
    mutating func attach(_ observer: ReplyObserver) -> [Action] {
        switch state {
        case .undecided(let events):
            state = .watched(observer)
            return events.map { .event(observer, $0) }
        case .watched, .unwatched:
            state = .watched(observer)
            return []
        case .ended(let outcome, let unclaimed):
            state = .ended(outcome, unclaimed: nil)
            return (unclaimed ?? []).map { .event(observer, $0) } + [.end(observer, outcome)]
        }
    }

    /// Nobody watches any more; the reply goes on in the background.
    mutating func detach() {
        switch state {
        case .undecided, .watched: state = .unwatched
        case .ended(let outcome, _): state = .ended(outcome, unclaimed: nil)
        case .unwatched: break
        }
    }

    /// The reply ended. `watched` says whether anyone was watching (or still may): if not,
    /// its end is announced as a notice.
    mutating func end(_ outcome: ReplyOutcome) -> (actions: [Action], watched: Bool) {
        switch state {
        case .undecided(let events):
            state = .ended(outcome, unclaimed: events)
            return ([], true)
        case .watched(let observer):
            state = .ended(outcome, unclaimed: nil)
            return ([.end(observer, outcome)], true)
        case .unwatched:
            state = .ended(outcome, unclaimed: nil)
            return ([], false)
        case .ended:
            return ([], true)
        }
    }
}

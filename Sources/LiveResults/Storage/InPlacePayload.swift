/// An enum whose cases carry copy-on-write storage (an array, a packed column) and that changes
/// a case's storage where it is (`modifyInPlace`), instead of copying it whole at each change.
protocol InPlacePayload {
    /// A case that refers to no buffer, which the enum holds while a case's storage changes.
    static var placeholder: Self { get }
}

extension InPlacePayload {
    /// Changes the storage of the case `self` holds in place, instead of copying it whole.
    ///
    /// `payload` is that case's storage, just bound out of `self` (`case .texts(var texts) =
    /// self`, switching on `self` alone: a tuple would hold a third reference). `self` and
    /// `payload` then both refer to its buffer, so a change through `payload` would copy the
    /// buffer first (copy on write). Holding `placeholder` first leaves `payload` the only
    /// reference; `body` changes it where it is, and `wrap` (the case) puts it back.
    @inline(__always)
    mutating func modifyInPlace<Payload>(_ payload: inout Payload, as wrap: (Payload) -> Self, _ body: (inout Payload) -> Void) {
        self = .placeholder
        body(&payload)
        self = wrap(payload)
    }
}

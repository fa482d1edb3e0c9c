import Glibc

/// An error carried by a signal: a domain, a code and a message. Immutable.
public final class RippleError: RippleObject, @unchecked Sendable {
    /// The domain of errors the runtime makes itself.
    public static let runtimeDomain = "ripple"
    /// Codes in `runtimeDomain`.
    public enum Code: Int64, Sendable {
        case generic = 1, timeout = 2, callback = 3
        /// A bounded deliver_on's queue overflowed (RPL_ERROR_OVERFLOW).
        case overflow = 5
    }
    /// `RPL_ERROR_TYPE`: a value of the wrong type reached an operator
    /// (`StoppingSink.refuseType`).
    public static let typeErrorCode: Int64 = 4

    // NUL-terminated copies, so C callers can borrow them for the error's life.
    public let domainCString: UnsafeMutablePointer<CChar>
    public let messageCString: UnsafeMutablePointer<CChar>
    public let code: Int64

    public init(domain: String, code: Int64, message: String) {
        domainCString = strdup(domain)
        messageCString = strdup(message)
        self.code = code
        super.init(kind: .error)
    }

    /// Copies C strings (NULL domain: the runtime domain; NULL message: "").
    public init(domain: UnsafePointer<CChar>?, code: Int64, message: UnsafePointer<CChar>?) {
        domainCString = domain.map { strdup($0) } ?? strdup("ripple")
        messageCString = message.map { strdup($0) } ?? strdup("")
        self.code = code
        super.init(kind: .error)
    }

    deinit {
        free(domainCString)
        free(messageCString)
    }

    public var domain: String { String(cString: domainCString) }
    public var message: String { String(cString: messageCString) }

    /// Same domain and code.
    public func matches(_ other: RippleError) -> Bool {
        code == other.code && strcmp(domainCString, other.domainCString) == 0
    }

    /// An error in the runtime's own domain.
    public static func runtime(_ code: Code, _ message: String) -> RippleError {
        RippleError(domain: runtimeDomain, code: code.rawValue, message: message)
    }

    /// What `send_error(NULL)` delivers.
    public static func generic() -> RippleError { .runtime(.generic, "generic error") }
}

import CRipple
import Ripple
import RippleSupport
import Testing

/// Swift's `Value` is the third statement of the `rpl_value` layout (after
/// ripple.h and ripple_callbacks.h, which assert it at compile time): the
/// shim bit-casts between them, so every field must sit where C puts it.
@Suite struct ValueLayoutTests {
    @Test func valueHasTheLayoutOfRplValue() {
        #expect(MemoryLayout<Value>.size == 16)
        #expect(MemoryLayout<Value>.size == MemoryLayout<rpl_value>.size)
        #expect(MemoryLayout<Value>.alignment == MemoryLayout<rpl_value>.alignment)
        #expect(MemoryLayout<Value>.offset(of: \Value.rawType) == MemoryLayout<rpl_value>.offset(of: \rpl_value.type))
        #expect(MemoryLayout<Value>.offset(of: \Value.reserved) == MemoryLayout<rpl_value>.offset(of: \rpl_value.reserved_))
        #expect(MemoryLayout<Value>.offset(of: \Value.bits) == MemoryLayout<rpl_value>.offset(of: \rpl_value.as))
    }

    @Test func valueHasTheLayoutOfRippleValue() {
        #expect(MemoryLayout<Value>.size == MemoryLayout<ripple_value>.size)
        #expect(MemoryLayout<Value>.offset(of: \Value.rawType) == MemoryLayout<ripple_value>.offset(of: \ripple_value.type))
        #expect(MemoryLayout<Value>.offset(of: \Value.reserved) == MemoryLayout<ripple_value>.offset(of: \ripple_value.reserved))
        #expect(MemoryLayout<Value>.offset(of: \Value.bits) == MemoryLayout<ripple_value>.offset(of: \ripple_value.bits))
    }
}

package observe

import (
	"encoding/binary"
	"math"
)

// pb appends protobuf fields: the few wire types OTLP's messages use,
// written by hand so that no protobuf runtime (and its package init, about
// 0.4 ms of every start) is linked in. Zero scalars are left out, as
// proto3 does, except in the *Always forms (oneof members, optional
// fields), whose presence is the value.
type pb []byte

const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func (b pb) tag(field, wire int) pb {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

func (b pb) varint(field int, v uint64) pb {
	if v == 0 {
		return b
	}
	return b.varintAlways(field, v)
}

func (b pb) varintAlways(field int, v uint64) pb {
	return binary.AppendUvarint(b.tag(field, wireVarint), v)
}

func (b pb) fixed64(field int, v uint64) pb {
	if v == 0 {
		return b
	}
	return b.fixed64Always(field, v)
}

func (b pb) fixed64Always(field int, v uint64) pb {
	return binary.LittleEndian.AppendUint64(b.tag(field, wireFixed64), v)
}

func (b pb) doubleAlways(field int, v float64) pb { return b.fixed64Always(field, math.Float64bits(v)) }

func (b pb) fixed32(field int, v uint32) pb {
	if v == 0 {
		return b
	}
	return binary.LittleEndian.AppendUint32(b.tag(field, wireFixed32), v)
}

func (b pb) bytes(field int, v []byte) pb {
	if len(v) == 0 {
		return b
	}
	return b.bytesAlways(field, v)
}

func (b pb) bytesAlways(field int, v []byte) pb {
	b = binary.AppendUvarint(b.tag(field, wireBytes), uint64(len(v)))
	return append(b, v...)
}

func (b pb) str(field int, s string) pb {
	if s == "" {
		return b
	}
	return b.strAlways(field, s)
}

func (b pb) strAlways(field int, s string) pb {
	b = binary.AppendUvarint(b.tag(field, wireBytes), uint64(len(s)))
	return append(b, s...)
}

// raw appends fields already encoded.
func (b pb) raw(fields pb) pb { return append(b, fields...) }

// msg appends an embedded message (even an empty one: its presence
// counts, as for a oneof member).
func (b pb) msg(field int, m pb) pb { return b.bytesAlways(field, m) }

// packedFixed64 appends a packed repeated fixed64 (or double) field.
func (b pb) packedFixed64(field int, vs []uint64) pb {
	if len(vs) == 0 {
		return b
	}
	b = binary.AppendUvarint(b.tag(field, wireBytes), uint64(8*len(vs)))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

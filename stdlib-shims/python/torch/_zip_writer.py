"""The checkpoint zip writer: stored (uncompressed) records whose data starts on a 64-byte
boundary, the local header padded by an ``FB`` extra field of ``Z`` bytes as PyTorch's writer
pads it; ZIP64 records where sizes or offsets pass 4 GiB. Storages go from tensor memory to the
file descriptor natively (no intermediate copy) when the target is a real file."""

import struct
import zlib

import _rynamo_serialization as _native

_ALIGNMENT = 64
_U32 = 0xFFFFFFFF
_DOS_DATE = (1 << 5) | 1  # 1980-01-01, the zip epoch
_DOS_TIME = 0


class ZipRecordWriter:
    def __init__(self, fileobj, prefix):
        self.f = fileobj
        self.prefix = prefix
        self.entries = []  # (name bytes, crc, size, header offset)
        try:
            self.fd = fileobj.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None
        try:
            self.offset = fileobj.tell()
        except (AttributeError, OSError):
            self.offset = 0

    def _write(self, data):
        self.f.write(data)
        self.offset += len(data)

    def _local_header(self, name, crc, size):
        zip64 = size >= _U32
        extra = struct.pack("<HHQQ", 1, 16, size, size) if zip64 else b""
        # Pad so that the record's data starts on a 64-byte boundary (PyTorch's `FB` field).
        start = self.offset + 30 + len(name) + len(extra) + 4
        pad = (-start) % _ALIGNMENT
        extra += b"FB" + struct.pack("<H", pad) + b"Z" * pad
        sizes = _U32 if zip64 else size
        version = 45 if zip64 else 20
        return struct.pack("<IHHHHHIIIHH", 0x04034B50, version, 0, 0, _DOS_TIME, _DOS_DATE, crc, sizes, sizes,
                           len(name), len(extra)) + name + extra

    def write(self, record, data):
        """A record from bytes."""
        name = f"{self.prefix}/{record}".encode()
        crc = zlib.crc32(data)
        header_offset = self.offset
        self._write(self._local_header(name, crc, len(data)))
        self._write(data)
        self.entries.append((name, crc, len(data), header_offset))

    def write_storage(self, record, tensor, nbytes):
        """A record holding every byte of ``tensor``'s storage (``nbytes`` of them)."""
        if self.fd is None:
            self.write(record, _native.storage_bytes(tensor))
            return
        name = f"{self.prefix}/{record}".encode()
        header_offset = self.offset
        # The CRC is known only once the bytes are read: a header with CRC 0 first, the data
        # straight from the tensor's memory, then the header again with the CRC (same length).
        header = self._local_header(name, 0, nbytes)
        self._write(header)
        self.f.flush()
        crc, written = _native.write_storage(self.fd, tensor)
        end = header_offset + len(header) + written
        self.f.seek(header_offset)
        self.f.write(self._local_header_at(name, nbytes, header_offset, crc))
        self.f.seek(end)
        self.offset = end
        self.entries.append((name, crc, written, header_offset))

    def _local_header_at(self, name, size, at, crc=0):
        saved = self.offset
        self.offset = at
        try:
            return self._local_header(name, crc, size)
        finally:
            self.offset = saved

    def close(self):
        # A 20-digit hash of the record names and a 20-digit combined CRC, like PyTorch's id.
        names_hash = zlib.crc32(b"".join(e[0] for e in self.entries)) * 2654435761 % 10**20
        combined = 0
        for e in self.entries:
            combined = (combined * 31 + e[1]) % 10**20
        self.write(".data/serialization_id", b"%020d%020d" % (names_hash, combined))
        cd_start = self.offset
        for name, crc, size, header_offset in self.entries:
            extra_fields = []
            if size >= _U32:
                extra_fields += [size, size]
            if header_offset >= _U32:
                extra_fields.append(header_offset)
            extra = struct.pack("<HH" + "Q" * len(extra_fields), 1, 8 * len(extra_fields), *extra_fields) \
                if extra_fields else b""
            version = 45 if extra else 20
            self._write(struct.pack(
                "<IHHHHHHIIIHHHHHII", 0x02014B50, version, version, 0, 0, _DOS_TIME, _DOS_DATE, crc,
                _U32 if size >= _U32 else size, _U32 if size >= _U32 else size, len(name), len(extra), 0, 0, 0, 0,
                _U32 if header_offset >= _U32 else header_offset) + name + extra)
        cd_size = self.offset - cd_start
        count = len(self.entries)
        if count >= 0xFFFF or cd_start >= _U32 or cd_size >= _U32:
            eocd64 = self.offset
            self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, cd_size, cd_start))
            self._write(struct.pack("<IIQI", 0x07064B50, 0, eocd64, 1))
            self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, _U32, _U32, 0))
        else:
            self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, cd_size, cd_start, 0))
        self.f.flush()

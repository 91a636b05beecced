//! The native halves of serialization (`_rynamo_serialization`, `_rynamo_safetensors`) through
//! Python: storage identity and bytes, flat tensors from buffers and files, `frombuffer`'s
//! sharing and errors, safetensors headers.

use crate::harness::check;

#[test]
fn storage_identity_and_bytes() {
    check(
        "
        import _rynamo_serialization as s
        x = torch.arange(6, dtype=torch.int16).reshape(2, 3)
        print(s.storage_key(x) == s.storage_key(x[1]), s.storage_key(x) == s.storage_key(x.clone()), s.storage_key(x)[1])
        print(s.storage_bytes(x[1]) == bytes([0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0]), s.tensor_bytes(x[1]))
        flat = s.storage_flat(x[1])
        flat[0] = 7
        print(flat.shape, x[0, 0].item())
        t = s.storage_from_buffer(b'\\x01\\x00\\x02\\x00', torch.int16)
        print(t.tolist(), t.dtype)
        try:
            s.storage_from_buffer(b'\\x01\\x00\\x02', torch.int16)
        except ValueError as e:
            print(e)
        ",
        "
        True False 12
        True b'\\x03\\x00\\x04\\x00\\x05\\x00'
        torch.Size([6]) 7
        [1, 2] torch.int16
        buffer length (3 bytes) is not a multiple of the element size (2) of int16
        ",
    );
}

#[test]
fn storage_from_file_reads_or_maps() {
    check(
        "
        import os, tempfile, _rynamo_serialization as s
        path = os.path.join(tempfile.mkdtemp(), 'raw.bin')
        open(path, 'wb').write(bytes(range(16)))
        a = s.storage_from_file(path, 4, 8, torch.uint8, False)
        b = s.storage_from_file(path, 8, 8, torch.int32, True)
        b[0] = -1
        print(a.tolist(), b.shape, open(path, 'rb').read()[8:12])
        try:
            s.storage_from_file(path, 12, 8, torch.uint8, True)
        except RuntimeError as e:
            print(str(e).split(': ', 1)[1])
        try:
            s.storage_from_file(path + '.missing', 0, 1, torch.uint8, False)
        except OSError as e:
            print(type(e).__name__)
        ",
        "
        [4, 5, 6, 7, 8, 9, 10, 11] torch.Size([2]) b'\\x08\\t\\n\\x0b'
        storage at byte 12 of 8 bytes runs past the end of the file (16 bytes)
        OSError
        ",
    );
}

#[test]
fn frombuffer_shares_writable_buffers() {
    check(
        "
        ba = bytearray(8)
        t = torch.frombuffer(ba, dtype=torch.int32)
        t[1] = 258
        print(t.tolist(), bytes(ba))
        print(torch.frombuffer(b'abcd', dtype=torch.uint8, count=2, offset=1).tolist())
        for kw in ({'count': 0}, {'offset': 9}, {'count': 3}):
            try:
                torch.frombuffer(ba, dtype=torch.int32, **kw)
            except ValueError as e:
                print(e)
        ",
        "
        [0, 258] b'\\x00\\x00\\x00\\x00\\x02\\x01\\x00\\x00'
        [98, 99]
        both buffer length (8) and count (0) must not be 0
        offset must be non-negative and no greater than buffer length (8) , but got 9
        requested buffer length (3 * 4 bytes) after offset (0 bytes) must not be greater than actual buffer length (8 bytes)
        ",
    );
}

#[test]
fn safetensors_bytes_round_trip_and_validation() {
    check(
        "
        import _rynamo_safetensors as st
        data = st.serialize([('b', torch.tensor([1, 2], dtype=torch.int64)), ('a', torch.ones(2, 2))], {'k': 'v'})
        n = int.from_bytes(data[:8], 'little')
        print(n % 8, data[8:9], len(data) - 8 - n)
        f = st.open_bytes(data)
        print(f.keys(), f.metadata(), f.info('a'), f.get_tensor('b').tolist())
        for blob in (b'\\x00', (2**40).to_bytes(8, 'little') + b'{}'):
            try:
                st.open_bytes(blob)
            except RuntimeError as e:
                print(e)
        ",
        "
        0 b'{' 32
        ['b', 'a'] {'k': 'v'} ('F32', (2, 2)) [1, 2]
        Error while deserializing header: header too small
        Error while deserializing header: header too large
        ",
    );
}

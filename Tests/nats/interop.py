"""A different client: nats-py and msgpack (PyPI) read what C published and
publish what C reads, and request a service C serves.
    interop.py URL TOOL...   (TOOL: test_nats_tool interop URL)"""
import asyncio
import sys

import msgpack
import nats

SENT_BY_C = [7, "two", 3.5, None, True, b"\x00\x01", [1, [2, "x"]], -300, 2 ** 40]


async def read_line(proc, want):
    while True:
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        if not line:
            raise RuntimeError("the C side ended before saying %s" % want)
        text = line.decode().strip()
        print("    C: " + text)
        if text == want:
            return


async def main(url, tool):
    nc = await nats.connect(url)
    got = []
    all_in = asyncio.get_running_loop().create_future()

    async def on_msg(msg):
        got.append(msgpack.unpackb(msg.data))
        if len(got) == len(SENT_BY_C) and not all_in.done():
            all_in.set_result(True)

    await nc.subscribe("c.to.py", cb=on_msg)
    await nc.flush()
    proc = await asyncio.create_subprocess_exec(*tool, stdout=asyncio.subprocess.PIPE)
    await read_line(proc, "READY")
    for v in SENT_BY_C + [{"a": 1}]:
        await nc.publish("py.to.c", msgpack.packb(v))
    await nc.flush()
    await read_line(proc, "SENT")
    await asyncio.wait_for(all_in, 20)
    ok = True
    if got != SENT_BY_C:
        print("python read %r, expected %r" % (got, SENT_BY_C))
        ok = False
    reply = await nc.request("c.echo", msgpack.packb(["hi", 5]), timeout=5)
    if msgpack.unpackb(reply.data) != ["hi", 5]:
        print("c.echo answered %r" % msgpack.unpackb(reply.data))
        ok = False
    await nc.publish("py.done", msgpack.packb(True))
    await nc.flush()
    rest = (await proc.stdout.read()).decode()
    for line in rest.strip().splitlines():
        print("    C: " + line)
    rc = await proc.wait()
    await nc.close()
    print("python: read %d values from C; the C side exited with %d" % (len(got), rc))
    return 0 if ok and rc == 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2:])))

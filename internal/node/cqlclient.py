#!/usr/bin/python3
# castable's CQL client for the live-node tests (internal/node): one process
# per node, one JSON request a line on stdin, one JSON answer a line on stdout.
#
#   {"stmts": ["INSERT ...", ...]}                 execute, 64 at a time, no rows
#   {"stmts": [...], "seq": true}                  one after the other (DDL)
#   {"query": "SELECT ...", "fetch": 5000}         rows, every page fetched
#
# Answers: {"ok": true} | {"columns": [[name, type], ...], "rows": [[hex|null, ...], ...]}
# | {"error": "..."}. Values are the raw bytes the node sent (the native
# protocol's serialized form), never decoded by the driver, so that a test
# compares exactly what Cassandra returned. Needs Debian's python3-cassandra
# (run it with /usr/bin/python3).
import json
import sys
import warnings

warnings.filterwarnings('ignore')

from cassandra import protocol
from cassandra.cluster import Cluster
from cassandra.concurrent import execute_concurrent
from cassandra.policies import WhiteListRoundRobinPolicy
from cassandra.query import SimpleStatement, tuple_factory


class RawResult(protocol.ResultMessage):
    """A result whose row values stay the bytes on the wire."""

    def recv_results_rows(self, f, protocol_version, user_type_map, result_metadata, *rest):
        self.recv_results_metadata(f, user_type_map)
        column_metadata = self.column_metadata or result_metadata
        rowcount = protocol.read_int(f)
        self.parsed_rows = [tuple(self.recv_row(f, len(column_metadata))) for _ in range(rowcount)]
        self.column_names = [c[2] for c in column_metadata]
        self.column_types = [c[3] for c in column_metadata]


class RawHandler(protocol.ProtocolHandler):
    message_types_by_opcode = protocol.ProtocolHandler.message_types_by_opcode.copy()
    message_types_by_opcode[RawResult.opcode] = RawResult


def main():
    port = int(sys.argv[1])
    cluster = Cluster(['127.0.0.1'], port=port,
                      load_balancing_policy=WhiteListRoundRobinPolicy(['127.0.0.1']),
                      connect_timeout=30, control_connection_timeout=30)
    session = cluster.connect()
    session.default_timeout = 120
    session.row_factory = tuple_factory
    session.client_protocol_handler = RawHandler
    out = sys.stdout
    out.write(json.dumps({"ok": True, "ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            if "stmts" in req and req.get("seq"):
                for s in req["stmts"]:
                    session.execute(SimpleStatement(s))
                ans = {"ok": True}
            elif "stmts" in req:
                stmts = [(SimpleStatement(s), ()) for s in req["stmts"]]
                for ok, res in execute_concurrent(session, stmts, concurrency=64, raise_on_first_error=False):
                    if not ok:
                        raise res
                ans = {"ok": True}
            else:
                st = SimpleStatement(req["query"], fetch_size=req.get("fetch") or 5000)
                rs = session.execute(st)
                rows = [[None if v is None else v.hex() for v in r] for r in rs]
                cols = [[n, t.cql_parameterized_type()] for n, t in zip(rs.column_names or [], rs.column_types or [])]
                ans = {"columns": cols, "rows": rows}
        except Exception as e:  # the test shows the node's message
            import traceback
            ans = {"error": "%s: %s\n%s" % (type(e).__name__, e, traceback.format_exc())}
        out.write(json.dumps(ans) + "\n")
        out.flush()
    cluster.shutdown()


if __name__ == '__main__':
    main()

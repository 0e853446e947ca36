/** Bedrock test helpers: AWS event-stream frames encoded by the AWS SDK's own codec (@smithy/eventstream-codec). */
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One frame per entry: `[eventType, payload]` is an event; `["!exceptionType", payload]` an exception. */
export function frames(entries: ReadonlyArray<[string, unknown]>): Buffer {
  return Buffer.concat(
    entries.map(([type, payload]) => {
      const exception = type.startsWith("!");
      const headers = exception
        ? { ":message-type": { type: "string" as const, value: "exception" }, ":exception-type": { type: "string" as const, value: type.slice(1) }, ":content-type": { type: "string" as const, value: "application/json" } }
        : { ":message-type": { type: "string" as const, value: "event" }, ":event-type": { type: "string" as const, value: type }, ":content-type": { type: "string" as const, value: "application/json" } };
      return Buffer.from(codec.encode({ headers, body: fromUtf8(JSON.stringify(payload)) }));
    }),
  );
}

import { targetName } from "./glue/wasm";

export function handle(request: string): string {
  return "{\"engine\":\"" + targetName() + "\",\"echo\":" + request.length.toString() + "}";
}

package ono;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

import org.msgpack.value.Value;
import org.msgpack.value.ValueFactory;

/**
 * A small, strict JSON reader for the tests: it turns the NAME.json golden vectors into
 * msgpack-core Values (object -> map with keys in file order, array -> array, string ->
 * str, integer -> int, number with a fraction or exponent -> float, true/false -> bool,
 * null -> nil), so that they can be compared with decoded frames and encoded again.
 */
final class Json {
    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    static Value parse(String text) {
        Json json = new Json(text);
        Value value = json.value();
        json.skipSpace();
        if (json.pos != text.length()) {
            throw json.error("text after the JSON value");
        }
        return value;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("JSON: " + what + " at offset " + pos);
    }

    private void skipSpace() {
        while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
    }

    private char peek() {
        skipSpace();
        if (pos >= text.length()) {
            throw error("unexpected end");
        }
        return text.charAt(pos);
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private boolean literal(String word) {
        if (text.startsWith(word, pos)) {
            pos += word.length();
            return true;
        }
        return false;
    }

    private Value value() {
        char c = peek();
        switch (c) {
            case '{': {
                pos++;
                List<Value> kvs = new ArrayList<>();
                if (peek() == '}') {
                    pos++;
                } else {
                    do {
                        if (peek() != '"') {
                            throw error("expected a key");
                        }
                        kvs.add(ValueFactory.newString(string()));
                        expect(':');
                        kvs.add(value());
                    } while (comma());
                    expect('}');
                }
                return ValueFactory.newMap(kvs.toArray(new Value[0]));
            }
            case '[': {
                pos++;
                List<Value> items = new ArrayList<>();
                if (peek() == ']') {
                    pos++;
                } else {
                    do {
                        items.add(value());
                    } while (comma());
                    expect(']');
                }
                return ValueFactory.newArray(items);
            }
            case '"':
                return ValueFactory.newString(string());
            default:
                if (literal("true")) {
                    return ValueFactory.newBoolean(true);
                }
                if (literal("false")) {
                    return ValueFactory.newBoolean(false);
                }
                if (literal("null")) {
                    return ValueFactory.newNil();
                }
                return number();
        }
    }

    private boolean comma() {
        if (peek() == ',') {
            pos++;
            return true;
        }
        return false;
    }

    private String string() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        for (;;) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = text.charAt(pos++);
            switch (e) {
                case '"': case '\\': case '/':
                    sb.append(e);
                    break;
                case 'b': sb.append('\b'); break;
                case 'f': sb.append('\f'); break;
                case 'n': sb.append('\n'); break;
                case 'r': sb.append('\r'); break;
                case 't': sb.append('\t'); break;
                case 'u': // surrogate pairs come as two \\u escapes: UTF-16, as Java strings are
                    sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    pos += 4;
                    break;
                default:
                    throw error("bad escape \\" + e);
            }
        }
    }

    private Value number() {
        int start = pos;
        boolean integer = true;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
            if (".eE".indexOf(text.charAt(pos)) >= 0) {
                integer = false;
            }
            pos++;
        }
        String s = text.substring(start, pos);
        if (s.isEmpty()) {
            throw error("unexpected character '" + text.charAt(pos) + "'");
        }
        if (!integer) {
            return ValueFactory.newFloat(Double.parseDouble(s));
        }
        BigInteger n = new BigInteger(s);
        return n.bitLength() < 64 ? ValueFactory.newInteger(n.longValue()) : ValueFactory.newInteger(n);
    }
}

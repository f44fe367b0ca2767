package ono;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.msgpack.value.ImmutableMapValue;
import org.msgpack.value.Value;

/** The golden vectors of protocol/vectors/ (SPEC §12), as the tests read them. */
final class Vectors {
    private Vectors() {}

    /** This kit's folder: Maven runs the tests there. */
    static final Path KIT = Path.of("").toAbsolutePath();
    static final Path DIR = KIT.resolve("../../protocol/vectors").normalize();
    static final Value INDEX = json("index");

    static byte[] bin(String name) {
        try {
            return Files.readAllBytes(DIR.resolve(name + ".bin"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Value json(String name) {
        try {
            return Json.parse(Files.readString(DIR.resolve(name + ".json"), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** NAME.json, which holds a message: as the map a decoded frame is. */
    static ImmutableMapValue map(String name) {
        return json(name).immutableValue().asMapValue();
    }

    static boolean hasJson(String name) {
        return Files.exists(DIR.resolve(name + ".json"));
    }

    /** Every NAME of a NAME.bin, sorted. */
    static List<String> all() {
        try (Stream<Path> files = Files.list(DIR)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(f -> f.endsWith(".bin"))
                    .map(f -> f.substring(0, f.length() - 4))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The names of index.json's "canonical", "accept" or "reject" set. */
    static List<String> set(String which) {
        List<String> names = new ArrayList<>();
        for (Value entry : Protocol.get(INDEX, which).asArrayValue()) {
            names.add(Protocol.str(Protocol.get(entry, "name")));
        }
        return names;
    }

    /** index.json's "session": the golden session in order, without the left-out (null) entries. */
    static List<String> session() {
        List<String> names = new ArrayList<>();
        for (Value v : Protocol.get(INDEX, "session").asArrayValue()) {
            if (v.isStringValue()) {
                names.add(Protocol.str(v));
            }
        }
        return names;
    }

    /** Only what the referee sends, of the golden session. */
    static List<String> refereeSession() {
        return session().stream().filter(n -> !n.startsWith("bot_") && !n.startsWith("action_")).toList();
    }

    static byte[] concat(List<String> names) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (String name : names) {
            out.writeBytes(bin(name));
        }
        return out.toByteArray();
    }

    /**
     * An InputStream that hands out {@code data} in pieces, as a pipe may: each read()
     * returns at most the bytes up to the next cut position (cuts ascending), or
     * {@code chunk} bytes at most when chunk > 0.
     */
    static final class Pieces extends InputStream {
        private final byte[] data;
        private final int[] cuts;
        private final int chunk;
        private int pos;
        private int reads;

        Pieces(byte[] data, int chunk, int... cuts) {
            this.data = data;
            this.chunk = chunk;
            this.cuts = cuts;
        }

        /** How many read calls returned bytes. */
        int reads() {
            return reads;
        }

        int position() {
            return pos;
        }

        private int limit() {
            int end = data.length;
            for (int cut : cuts) {
                if (cut > pos) {
                    end = Math.min(end, cut);
                    break;
                }
            }
            if (chunk > 0) {
                end = Math.min(end, pos + chunk);
            }
            return end;
        }

        @Override
        public int read() {
            if (pos >= data.length) {
                return -1;
            }
            reads++;
            return data[pos++] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            if (pos >= data.length) {
                return -1;
            }
            int n = Math.min(len, limit() - pos);
            System.arraycopy(data, pos, b, off, n);
            pos += n;
            reads++;
            return n;
        }
    }
}

package dev.verificationservice.bench;

/** Runs the cost probe alone and prints what it found (for working on the suite). */
public final class ProbeMain {
    private ProbeMain() {
    }

    public static void main(String[] args) {
        CostProbe.run().values().forEach(cost -> System.out.println(cost));
    }
}

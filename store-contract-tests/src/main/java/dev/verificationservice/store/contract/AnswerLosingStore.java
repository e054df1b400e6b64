package dev.verificationservice.store.contract;

import dev.verificationservice.VerificationStore;

/**
 * A store on the test's table with something between it and its data that can lose an answer: the write is applied,
 * its answer never arrives, and the store's client sends the write again on its own, as after a dropped connection.
 */
public interface AnswerLosingStore {

    VerificationStore store();

    /** The answer to the next write that carries an event (an audit entry some endpoint subscribes to) is lost, once. */
    void loseNextAnswer();

    /** The answer to the next {@code operation} (DynamoDB's, such as {@code UpdateItem}) naming {@code text} is lost, once. */
    void loseNextAnswerTo(String operation, String text);

    /** How many answers were lost so far: a test checks that its write met the fault. */
    int answersLost();
}

package dev.verificationservice.delivery.sms;

import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.DeliveryException;
import dev.verificationservice.codes.OutgoingCode;
import dev.verificationservice.delivery.messages.MessageRenderer;
import dev.verificationservice.delivery.messages.SmsSegments;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.model.MessageAttributeValue;
import software.amazon.awssdk.services.sns.model.PublishRequest;

/** SMS codes through Amazon SNS: a direct, transactional Publish to the phone number. */
public final class SnsSmsSender implements CodeSender {

    private final SnsClient sns;
    private final MessageRenderer renderer;
    private final String senderId;
    private final Consumer<SmsSegments> sent;

    /**
     * @param sent told the segments of every message SNS accepted (for the segment metric)
     */
    public SnsSmsSender(SnsClient sns, MessageRenderer renderer, String senderId, Consumer<SmsSegments> sent) {
        this.sns = sns;
        this.renderer = renderer;
        this.senderId = senderId;
        this.sent = sent;
    }

    public SnsSmsSender(SnsClient sns, MessageRenderer renderer, String senderId) {
        this(sns, renderer, senderId, segments -> { });
    }

    /** The Publish request for one message; transactional, so SNS favours delivery over cost. */
    public PublishRequest publishRequest(OutgoingCode message) {
        return publishRequest(message, renderer.renderSms(message));
    }

    private PublishRequest publishRequest(OutgoingCode message, MessageRenderer.RenderedSms sms) {
        Map<String, MessageAttributeValue> attributes = new HashMap<>();
        attributes.put("AWS.SNS.SMS.SMSType", text("Transactional"));
        if (senderId != null && !senderId.isBlank()) {
            attributes.put("AWS.SNS.SMS.SenderID", text(senderId));
        }
        return PublishRequest.builder()
                .phoneNumber(message.deliveryTarget())
                .message(sms.body())
                .messageAttributes(attributes)
                .build();
    }

    @Override
    public void send(OutgoingCode message) throws DeliveryException {
        MessageRenderer.RenderedSms sms = renderer.renderSms(message);
        try {
            sns.publish(publishRequest(message, sms));
            sent.accept(sms.segments());
        } catch (SdkException e) {
            throw new DeliveryException("Amazon SNS did not accept the message (" + e.getClass().getSimpleName() + ")", e);
        }
    }

    private static MessageAttributeValue text(String value) {
        return MessageAttributeValue.builder().dataType("String").stringValue(value).build();
    }
}
